/** Filled in with the module's paths and schemas. */
export const locationPaths = {};
export const locationSchemas = {};
