/**
 * Condition fragments of writes, named once. An entity module combines them (`and`) with its own
 * attribute checks; domain code asks the entity module, never spells a condition.
 */

/** The item is there. */
export const EXISTS = 'attribute_exists(pk)';
/** No item is there yet (a create, a claim). */
export const NOT_EXISTS = 'attribute_not_exists(pk)';
/** The item is there and not in the trash. */
export const LIVE = 'attribute_exists(pk) AND attribute_not_exists(deletedTime)';
/** The item is there and no permanent delete has started on it. */
export const NOT_PURGED = 'attribute_exists(pk) AND attribute_not_exists(purgeTime)';

/** Every fragment, all required. */
export const and = (...parts: string[]): string =>
  parts.map((p) => (/ OR /.test(p) ? `(${p})` : p)).join(' AND ');
/** Any of the fragments. */
export const or = (...parts: string[]): string => parts.join(' OR ');
