/**
 * The ids of the three built-in roles, as the seed creates them (seeds/access.ts): what the code
 * decides by (a Super_admin's reach, the counters of Admins, the role filters). Roles an
 * organization adds get the ids after these.
 */
export const ROLE_ID = { superAdmin: 1, admin: 2, user: 3 } as const;

export const BUILT_IN_ROLE_IDS: readonly number[] = Object.values(ROLE_ID);
