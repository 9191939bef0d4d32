/** Filled in with the module's paths and schemas. */
export const referencePaths = {};
export const referenceSchemas = {};
