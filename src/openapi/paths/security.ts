/** Filled in with the module's paths and schemas. */
export const securityPaths = {};
export const securitySchemas = {};
