import { NotFoundError, ValidationError } from '#shared/core/errors.ts';
import type { Choice, Field, StoredCell, WriteContext } from '#shared/fields/field-types.ts';
import { isEmptyCell } from '#shared/fields/kind-helpers.ts';
import { fieldKind } from '#shared/fields/registry.ts';
import type { FieldKeyType } from '#shared/schema/schema.ts';

/** The key of a field in `record.fields` and in request bodies, per `fieldKeyType`. */
export const fieldKeyOf = (field: Field, keyType: FieldKeyType): string =>
  keyType === 'id' ? field.id : keyType === 'name' ? field.name : field.dbFieldName;

/** Finds the field a key names, or the contract's 404 `Field <kind>: <key> not found`. */
export const resolveFieldKey = (fields: readonly Field[], key: string, keyType: FieldKeyType): Field => {
  const field = fields.find((f) => fieldKeyOf(f, keyType) === key);
  if (!field) throw new NotFoundError(`Field ${keyType}: ${key.slice(0, 100)} not found`);
  return field;
};

/** The cells one written record sets: field id → stored value (undefined clears the cell). */
export type CellChanges = Map<string, StoredCell | undefined>;

/** What converting a batch of written records gives. */
export interface ConvertedBatch {
  /** One map per record, in request order; computed fields are left out. */
  changes: CellChanges[];
  /** Fields whose options typecast changed (new select choices), as they must be stored. */
  changedFields: Field[];
  /** Link cells written by title, per record: field id → titles to resolve. */
  linkTitles: Map<string, string[]>[];
}

const MAX_FIELDS_PER_RECORD = 500;

/**
 * Converts the `fields` objects of written records into cell changes: keys resolved per
 * `fieldKeyType` (an unknown key is a 404 before anything is written), computed fields skipped,
 * each value validated or typecast by its field type. Choices that typecast adds are visible to
 * the following records of the same batch, so a new name is added once. Pure.
 */
export const convertRecords = (
  fields: readonly Field[],
  inputs: readonly Record<string, unknown>[],
  options: { keyType: FieldKeyType; typecast: boolean; ctx: WriteContext },
): ConvertedBatch => {
  const working = new Map(fields.map((f) => [f.id, f]));
  const changed = new Set<string>();
  const changes: CellChanges[] = [];
  const linkTitles: Map<string, string[]>[] = [];
  for (const input of inputs) {
    const entries = Object.entries(input);
    if (entries.length > MAX_FIELDS_PER_RECORD)
      throw new ValidationError(`A record may set at most ${MAX_FIELDS_PER_RECORD} fields`);
    const cells: CellChanges = new Map();
    const titles = new Map<string, string[]>();
    for (const [key, raw] of entries) {
      const field = working.get(resolveFieldKey([...working.values()], key, options.keyType).id) as Field;
      const kind = fieldKind(field.type);
      if (kind.isComputed || field.isComputed) continue;
      const converted =
        raw === null || raw === undefined
          ? { value: undefined }
          : options.typecast
            ? kind.typecast(raw, field, options.ctx)
            : kind.validate(raw, field, options.ctx);
      if (converted.newChoices?.length) {
        const choices = [...((field.options.choices as Choice[] | undefined) ?? []), ...converted.newChoices];
        working.set(field.id, { ...field, options: { ...field.options, choices } });
        changed.add(field.id);
      }
      if (converted.linkTitles?.length) titles.set(field.id, converted.linkTitles);
      cells.set(field.id, converted.value);
    }
    changes.push(cells);
    linkTitles.push(titles);
  }
  return { changes, changedFields: [...changed].map((id) => working.get(id) as Field), linkTitles };
};

/**
 * Fills the cells a new record leaves empty with their fields' defaults, then checks `notNull`.
 * Pure.
 */
export const applyDefaults = (
  fields: readonly Field[],
  cells: CellChanges,
  ctx: WriteContext,
): CellChanges => {
  const out: CellChanges = new Map(cells);
  for (const field of fields) {
    const kind = fieldKind(field.type);
    if (kind.isComputed || field.isComputed) continue;
    if (isEmptyCell(out.get(field.id))) {
      const value = kind.defaultValue(field, ctx);
      if (!isEmptyCell(value)) out.set(field.id, value);
    }
  }
  return out;
};

/** A `notNull` field left empty is a 400 naming it. Pure. */
export const assertNotNull = (fields: readonly Field[], cellOf: (fieldId: string) => unknown): void => {
  for (const field of fields) {
    if (field.notNull && !field.isComputed && isEmptyCell(cellOf(field.id)))
      throw new ValidationError(`Field "${field.name}" (${field.id}) must not be empty`);
  }
};
