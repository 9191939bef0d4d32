/** The four-level geography (country, division, district, thana): docs/api.md, Locations. Uses access for permissions. */
export { LEVELS, LOCATIONS_PAGE, parentNameField, type LevelDef } from './locations.levels';
export { locationsRouter } from './locations.router';
export { LOCATIONS_CHANGED, LocationsService } from './locations.service';
