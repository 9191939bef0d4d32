/** The four-level geography (country, division, district, thana): docs/api.md, Locations. Uses access for permissions. */
export { LEVELS, parentNameField, type LevelDef } from './locations.levels';
export { locationsRouter } from './locations.router';
export { LOCATIONS_CHANGED, LOCATIONS_PAGE, LocationsService } from './locations.service';
