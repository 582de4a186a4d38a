/** Field names and dbFieldNames (fields.md, first paragraph). Pure. */
import type { Field } from './field-types.ts';

/** A field by id, else by name (filters, sorts, groups and projections accept both). */
export const fieldByRef = <F extends Pick<Field, 'id' | 'name'>>(
  fields: readonly F[],
  ref: string,
): F | undefined => fields.find((f) => f.id === ref) ?? fields.find((f) => f.name === ref);

/**
 * Names no field may have: records are written and answered as objects keyed by field name (or
 * dbFieldName), and assigning the key `__proto__` changes an object's prototype instead of adding
 * a cell (before issue 27 a write by that name silently stored nothing). Other names that only
 * look special (`constructor`, `toString`) work: every lookup by name is by own key.
 */
export const RESERVED_FIELD_NAMES: ReadonlySet<string> = new Set(['__proto__']);

const DB_FIELD_NAME = /^[A-Za-z_]\w{0,62}$/;
const DB_FIELD_NAME_MAX = 63;

/** True when `value` is a valid dbFieldName (`^[A-Za-z_]\w{0,62}$`). */
export const isDbFieldName = (value: unknown): value is string =>
  typeof value === 'string' && DB_FIELD_NAME.test(value) && !RESERVED_FIELD_NAMES.has(value);

/**
 * A field name reduced to the dbFieldName alphabet: every other character becomes `_`, a leading
 * digit gets a `_` before it, the result is cut to 63 characters; nothing usable gives `field`.
 */
export const dbFieldNameFrom = (name: string): string => {
  // \w without the `u` flag is ASCII only, exactly the alphabet of the pattern
  let reduced = name.trim().replace(/\W/g, '_');
  if (/^\d/.test(reduced)) reduced = `_${reduced}`;
  reduced = reduced.slice(0, DB_FIELD_NAME_MAX);
  return reduced === '' ? 'field' : reduced;
};

/** The first of `base`, `base_2`, `base_3`… not among `taken`, shortening base to stay within 63. */
export const uniqueDbFieldName = (base: string, taken: Iterable<string>): string => {
  const used = new Set([...taken, ...RESERVED_FIELD_NAMES]);
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `_${n}`;
    const candidate = `${base.slice(0, DB_FIELD_NAME_MAX - suffix.length)}${suffix}`;
    if (!used.has(candidate)) return candidate;
  }
};

/**
 * `name` when no field has it, else the next free name as Teable numbers them: a name ending in
 * a separate number counts on from it (`Price 2` → `Price 3`), any other (and a name that is only
 * a number) gets ` 2`, ` 3`… (`Price` → `Price 2`, `Q3` → `Q3 2`).
 */
export const uniqueFieldName = (name: string, taken: Iterable<string>): string => {
  const used = new Set([...taken, ...RESERVED_FIELD_NAMES]);
  if (!used.has(name)) return name;
  const numbered = Number.isNaN(Number(name)) ? /^(.*)(\b\d+)$/.exec(name) : null;
  const base = numbered ? (numbered[1] ?? '').trim() : name;
  let n = numbered ? Number.parseInt(numbered[2] ?? '2', 10) : 2;
  while (used.has(`${base} ${n}`)) n++;
  return `${base} ${n}`;
};
