import type { Knex } from 'knex';
import geography from './data/bangladesh-locations.json';

interface Place {
  name: string;
  code: string;
}

/** The administrative geography of Bangladesh (seeds/data), into an empty countries table. */
export async function seedLocations(trx: Knex.Transaction): Promise<void> {
  if (await trx('countries').first('id')) return;
  const now = new Date();
  const row = (place: Place, parent?: Record<string, number>) => ({
    name: place.name,
    code: place.code,
    is_active: true,
    created_at: now,
    updated_at: now,
    ...parent,
  });
  const [countryId] = await trx('countries').insert(row(geography.country));
  for (const division of geography.divisions) {
    const [divisionId] = await trx('divisions').insert(row(division, { country_id: Number(countryId) }));
    for (const district of division.districts) {
      const [districtId] = await trx('districts').insert(row(district, { division_id: Number(divisionId) }));
      await trx('thanas').insert(district.thanas.map((thana: Place) => row(thana, { district_id: Number(districtId) })));
    }
  }
}
