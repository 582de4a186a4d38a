/**
 * A link's storage names as Teable answers them in its link options: `fkHostTableName` (the SQL
 * table that holds the link there: a junction table for many-many and one-way one-many links,
 * else the table of the many-one or one-one side), `selfKeyName` and `foreignKeyName` (its key
 * columns). Nothing here stores by them (a link is kept as ids in the record item): they are
 * names only, answered so Teable's clients find what its server would give, made when a link is
 * made and kept with it. Pure.
 *
 * Teable's rules, for a link `fieldId` made by the user (the origin) in a table whose database
 * name is `dbTableName`, to a table whose database name is `foreignDbTableName`:
 * - manyMany: host `<baseId>.junction_<fieldId>_<symmetricFieldId>` (one-way:
 *   `<baseId>.junction_<fieldId>`), self `__fk_<symmetricFieldId>`, foreign `__fk_<fieldId>`;
 * - manyOne and oneOne: host `dbTableName`, self `__id`, foreign `__fk_<fieldId>`;
 * - oneMany: host `foreignDbTableName`, self `__fk_<symmetricFieldId>`, foreign `__id`
 *   (one-way: host the junction, foreign `__fk_<fieldId>`).
 * A one-way link has no symmetric field to name its self key: `__fk_rad<16 random characters>`.
 * The symmetric field has the same host with the two keys swapped.
 */
import type { LinkRelationship } from './field-types.ts';

export interface LinkStorageNames {
  fkHostTableName: string;
  selfKeyName: string;
  foreignKeyName: string;
}

const LINK_STORAGE_KEYS = ['fkHostTableName', 'selfKeyName', 'foreignKeyName'] as const;

export interface LinkStorageInput {
  baseId: string;
  fieldId: string;
  relationship: LinkRelationship;
  /** Undefined for a one-way link. */
  symmetricFieldId?: string;
  dbTableName: string;
  foreignDbTableName: string;
  /** 16 random characters for a one-way link's self key (`randomBase62(16)`). */
  random: string;
}

const fk = (fieldId: string) => `__fk_${fieldId}`;

/** The names of a new link (`origin`) and of its symmetric field (`symmetric`, two-way only). */
export const linkStorageNames = (
  input: LinkStorageInput,
): { origin: LinkStorageNames; symmetric?: LinkStorageNames } => {
  const { baseId, fieldId, relationship, symmetricFieldId: sym } = input;
  const junction = `${baseId}.junction_${fieldId}${sym ? `_${sym}` : ''}`;
  const selfFk = sym ? fk(sym) : `__fk_rad${input.random}`;
  const origin: LinkStorageNames =
    relationship === 'manyMany'
      ? { fkHostTableName: junction, selfKeyName: selfFk, foreignKeyName: fk(fieldId) }
      : relationship === 'oneMany'
        ? sym
          ? { fkHostTableName: input.foreignDbTableName, selfKeyName: selfFk, foreignKeyName: '__id' }
          : { fkHostTableName: junction, selfKeyName: selfFk, foreignKeyName: fk(fieldId) }
        : { fkHostTableName: input.dbTableName, selfKeyName: '__id', foreignKeyName: fk(fieldId) };
  if (!sym) return { origin };
  return {
    origin,
    symmetric: {
      fkHostTableName: origin.fkHostTableName,
      selfKeyName: origin.foreignKeyName,
      foreignKeyName: origin.selfKeyName,
    },
  };
};

/** The storage names kept in a link's options; undefined when any is missing. */
export const storedLinkNames = (options: Readonly<Record<string, unknown>>): LinkStorageNames | undefined => {
  const [host, self, foreign] = LINK_STORAGE_KEYS.map((k) => options[k]);
  return typeof host === 'string' && typeof self === 'string' && typeof foreign === 'string'
    ? { fkHostTableName: host, selfKeyName: self, foreignKeyName: foreign }
    : undefined;
};

/**
 * A link's storage names as answered: the kept ones, or for a link kept before they were (none
 * since this round's links), where this service keeps it: the record item, by `id`, under the
 * field's id.
 */
export const linkNamesOf = (field: {
  id: string;
  options: Readonly<Record<string, unknown>>;
}): LinkStorageNames =>
  storedLinkNames(field.options) ?? {
    fkHostTableName: 'record',
    selfKeyName: 'id',
    foreignKeyName: field.id,
  };
