/**
 * A generic engine of records kept in one table each: a resource is described as data
 * (ResourceDef: table, fields, parent, unique keys, validators, messages) and the engine makes
 * its service methods (CrudService) and routes (crudRouter). It knows no table of its own: the
 * module that uses it gives the transaction frame and the record of changes (ChangeRunner,
 * ChangeRecorder) and what stands in front of the routes (CrudRoutes).
 */
export { type FieldKind, type ParentRelation, type ParentResource, type ResourceDef, type ResourceRules, type UniqueKey, type Values } from './resource';
export { crudRouter, type CrudRoutes } from './router';
export { CrudService, type ChangeRecorder, type ChangeRunner, type ListInput, type RecordedChange } from './service';
