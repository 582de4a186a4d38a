/**
 * Building and changing field definitions from request bodies (fields.md; endpoints.md "Tables,
 * fields, views"). Pure apart from new ids: the caller stores the result.
 */

import { ValidationError } from '#shared/core/errors.ts';
import { isId, newId } from '#shared/ids.ts';
import { dbFieldTypeOf } from './db-field-type.ts';
import { assertNoCycle } from './dependencies.ts';
import {
  dbFieldNameFrom,
  isDbFieldName,
  RESERVED_FIELD_NAMES,
  uniqueDbFieldName,
  uniqueFieldName,
} from './field-names.ts';
import type { Choice, Field, FieldKind } from './field-types.ts';
import { resolverOf } from './formula-resolve.ts';
import { isNothing, isRecord } from './kind-helpers.ts';
import { storedLinkNames } from './link-storage.ts';
import {
  type ForeignFields,
  lookupDefaultName,
  lookupFieldParts,
  lookupKindOf,
  resolveLookupOptions,
  rollupFieldParts,
} from './lookup.ts';
import { fieldKind } from './registry.ts';

const MAX_NAME = 255;
const MAX_DESCRIPTION = 20_000;

/** A create body (`POST /table/{tableId}/field`, or one item of a new table's `fields`). */
export interface FieldInput {
  type: string;
  id?: string;
  name?: string;
  description?: string | null;
  dbFieldName?: string;
  options?: unknown;
  notNull?: boolean;
  unique?: boolean;
  isPrimary?: boolean;
}

/** A PATCH body (`PATCH /table/{tableId}/field/{fieldId}`). */
export interface FieldPatch {
  name?: string;
  description?: string | null;
  dbFieldName?: string;
  options?: unknown;
  /** Only accepted when it equals the field's type: changing types is not supported. */
  type?: string;
}

/** The table a field is defined in. */
export interface DefineContext {
  /** The other fields of the table (for unique names and dbFieldNames, and the primary field). */
  existing: readonly Field[];
  /** Ids for select choices given without one; `newId('choice')` when absent. */
  newChoiceId?: () => string;
  /** The name when the body has none, instead of the type's; a link is named after its foreign table. */
  defaultName?: string;
  /** The fields of the tables this table links to (lookups and rollups read them). */
  foreign?: ForeignFields;
  /**
   * A new field's given name that another field has already becomes unique (`Price 2`, `Q3` →
   * `Q4` style, as Teable's field creation does) instead of a 400. Renames and conversions keep
   * the 400: there the caller names one field on purpose.
   */
  renameTakenName?: boolean;
}

const fail = (message: string) => new ValidationError(message);

const optionalText = (value: unknown, what: string, max: number): string | undefined => {
  if (isNothing(value)) return undefined;
  if (typeof value !== 'string') throw fail(`${what} must be text`);
  if (value.length > max) throw fail(`${what} must be at most ${max} characters`);
  return value;
};

const optionalFlag = (value: unknown, what: string): boolean | undefined => {
  if (isNothing(value)) return undefined;
  if (typeof value !== 'boolean') throw fail(`${what} must be true or false`);
  return value;
};

/** A given name, trimmed; it must not be taken by another field (names are unique in a table). */
const checkName = (name: string, others: readonly Field[]): string => {
  const trimmed = name.trim();
  if (trimmed === '') throw fail('name must not be empty');
  if (RESERVED_FIELD_NAMES.has(trimmed)) throw fail(`A field cannot be named "${trimmed}"`);
  if (others.some((f) => f.name === trimmed))
    throw fail(`A field named "${trimmed}" already exists in this table`);
  return trimmed;
};

const checkDbFieldName = (dbFieldName: string, others: readonly Field[]): string => {
  if (RESERVED_FIELD_NAMES.has(dbFieldName))
    throw fail(`A field cannot have the dbFieldName "${dbFieldName}"`);
  if (!isDbFieldName(dbFieldName))
    throw fail(`dbFieldName "${dbFieldName}" must match ^[A-Za-z_]\\w{0,62}$ (letters, digits, _)`);
  if (others.some((f) => f.dbFieldName === dbFieldName))
    throw fail(`dbFieldName "${dbFieldName}" is already used in this table`);
  return dbFieldName;
};

/** cellValueType, isMultipleCellValue, isComputed and dbFieldType as the kind derives them from the options. */
const derived = (kind: FieldKind, options: Record<string, unknown>) => {
  const cellValueType = kind.cellValueType(options);
  const isMultipleCellValue = kind.isMultipleCellValue(options);
  return {
    cellValueType,
    ...(isMultipleCellValue ? { isMultipleCellValue: true } : {}),
    ...(kind.isComputed ? { isComputed: true } : {}),
    dbFieldType: dbFieldTypeOf({ type: kind.type, cellValueType, isMultipleCellValue }),
  };
};

/** The primary field must be of an allowed type (fields.md "The primary field"); else a 400. */
export const assertPrimaryAllowed = (field: Pick<Field, 'type' | 'name'>): void => {
  if (!fieldKind(field.type).allowedAsPrimary)
    throw fail(`A ${field.type} field cannot be the primary field (field "${field.name}")`);
};

/**
 * A complete new field from a create body and the table's other fields: id, name (the type's
 * default made unique when absent), dbFieldName (from the name, made unique with `_2`, `_3`…),
 * normalised options and the derived flags. It is the primary field when the body says so, or
 * when the table has no field yet. Any bad part of the body is a 400.
 */
export const defineField = (input: FieldInput | Record<string, unknown>, ctx: DefineContext): Field => {
  if (!isRecord(input)) throw fail('A field must be an object');
  if (typeof input.type !== 'string') throw fail('type is required');
  const kind = fieldKind(input.type);
  const others = ctx.existing;
  // lookups and rollups read another table through a link of this one (computed.md 4, 5, 8)
  const linked = lookupKindOf(input);
  const reach = linked
    ? resolveLookupOptions(input.lookupOptions, others, ctx.foreign ?? (() => undefined))
    : undefined;

  if (!isNothing(input.id) && !isId('field', input.id)) throw fail('id must be a field id (fld…)');
  const id = typeof input.id === 'string' ? input.id : newId('field');
  if (others.some((f) => f.id === id)) throw fail(`A field with id ${id} already exists in this table`);

  const givenName = optionalText(input.name, 'name', MAX_NAME)?.trim();
  const name = givenName
    ? checkName(
        // a name another field has (not a reserved one, which stays a 400)
        ctx.renameTakenName && others.some((f) => f.name === givenName)
          ? uniqueFieldName(
              givenName,
              others.map((f) => f.name),
            )
          : givenName,
        others,
      )
    : uniqueFieldName(
        (linked && reach ? lookupDefaultName(linked, reach.link, reach.lookedUp) : ctx.defaultName?.trim()) ||
          kind.defaultName,
        others.map((f) => f.name),
      );
  const givenDbName = optionalText(input.dbFieldName, 'dbFieldName', 63);
  const dbFieldName =
    givenDbName !== undefined
      ? checkDbFieldName(givenDbName, others)
      : uniqueDbFieldName(
          dbFieldNameFrom(name),
          others.map((f) => f.dbFieldName),
        );

  const parts =
    linked === 'lookup' && reach
      ? lookupFieldParts({ type: input.type, options: input.options }, reach)
      : linked === 'rollup' && reach
        ? rollupFieldParts({ options: input.options }, reach, true)
        : undefined;
  const options =
    parts?.options ??
    kind.normalizeOptions(input.options, {
      newChoiceId: ctx.newChoiceId ?? (() => newId('choice')),
    });
  const description = optionalText(input.description, 'description', MAX_DESCRIPTION);
  const notNull = optionalFlag(input.notNull, 'notNull');
  const unique = optionalFlag(input.unique, 'unique');
  if ((kind.isComputed || parts) && (notNull || unique))
    throw fail(`A ${linked ?? kind.type} field is computed and cannot be notNull or unique`);

  const isPrimary = optionalFlag(input.isPrimary, 'isPrimary') ?? others.length === 0;
  if (isPrimary && others.some((f) => f.isPrimary)) throw fail('The table already has a primary field');

  const field: Field = {
    id,
    name,
    type: kind.type,
    ...(description !== undefined ? { description } : {}),
    options,
    dbFieldName,
    ...(isPrimary ? { isPrimary: true } : {}),
    ...(notNull ? { notNull: true } : {}),
    ...(unique ? { unique: true } : {}),
    ...(parts ?? derived(kind, options)),
  };
  const resolve = resolverOf(field.type);
  const resolved = resolve && !parts ? resolve(field, others, true) : field;
  if (isPrimary) assertPrimaryAllowed(resolved);
  return resolved;
};

// Changing these would need every cell and the other side of the link rewritten.
const FIXED_LINK_OPTIONS = [
  'relationship',
  'foreignTableId',
  'isOneWay',
  'symmetricFieldId',
  'lookupFieldId',
];

const checkLinkPatch = (field: Field, patch: Record<string, unknown>): void => {
  for (const key of FIXED_LINK_OPTIONS) {
    if (key in patch && patch[key] !== field.options[key])
      throw fail(`options.${key} of a link field cannot be changed`);
  }
};

/** A select field's default after its choices are replaced: renamed choices followed (by id), removed ones dropped. */
const followDefault = (field: Field, choices: unknown[]): unknown => {
  const before = field.options.defaultValue;
  if (isNothing(before)) return before;
  const old = Array.isArray(field.options.choices) ? (field.options.choices as Choice[]) : [];
  const next = choices.filter(isRecord);
  const follow = (name: unknown): string | undefined => {
    if (typeof name !== 'string') return undefined;
    const oldId = old.find((c) => c.name === name)?.id;
    const same = next.find((c) => oldId !== undefined && c.id === oldId);
    if (typeof same?.name === 'string') return same.name.trim();
    return next.some((c) => typeof c.name === 'string' && c.name.trim() === name) ? name : undefined;
  };
  if (!Array.isArray(before)) return follow(before);
  const names = before.map(follow).filter((n) => n !== undefined);
  return names.length ? names : undefined;
};

/**
 * A field after a PATCH of name, description, dbFieldName or options. Options are merged over the
 * stored ones and normalised again (a select's `choices` is replaced as a whole: keep the ids of
 * choices to keep). A `type` other than the field's is a 400: types do not change.
 */
export const updateField = (
  field: Field,
  patch: FieldPatch | Record<string, unknown>,
  ctx: DefineContext,
): Field => {
  if (!isRecord(patch)) throw fail('The field update must be an object');
  if (!isNothing(patch.type) && patch.type !== field.type)
    throw fail(`Changing a field's type (${field.type} to ${String(patch.type)}) is not supported`);
  const others = ctx.existing.filter((f) => f.id !== field.id);
  const kind = fieldKind(field.type);
  const next: Field = { ...field };

  const name = optionalText(patch.name, 'name', MAX_NAME);
  if (name !== undefined && name.trim() !== field.name) next.name = checkName(name, others);
  const dbFieldName = optionalText(patch.dbFieldName, 'dbFieldName', 63);
  if (dbFieldName !== undefined && dbFieldName !== field.dbFieldName)
    next.dbFieldName = checkDbFieldName(dbFieldName, others);
  if ('description' in patch) {
    const description = optionalText(patch.description, 'description', MAX_DESCRIPTION);
    if (description === undefined || description === '') delete next.description;
    else next.description = description;
  }
  if (!isNothing(patch.options)) {
    if (!isRecord(patch.options)) throw fail('options must be an object');
    if (field.type === 'link') checkLinkPatch(field, patch.options);
    const merged = { ...field.options, ...patch.options };
    // new choices without a new default: the default follows renamed choices and loses removed ones
    if (Array.isArray(patch.options.choices) && !('defaultValue' in patch.options))
      merged.defaultValue = followDefault(field, patch.options.choices);
    next.options = kind.normalizeOptions(merged, { newChoiceId: ctx.newChoiceId ?? (() => newId('choice')) });
    // a link's storage names are the schema layer's: kept through a PATCH, never taken from one
    const names = field.type === 'link' ? storedLinkNames(field.options) : undefined;
    if (names) next.options = { ...next.options, ...names };
    delete next.isMultipleCellValue;
    Object.assign(next, derived(kind, next.options));
    const resolve = resolverOf(next.type);
    if (resolve) {
      const strict = 'formatting' in patch.options || 'showAs' in patch.options;
      const resolved = resolve(next, others, strict);
      assertNoCycle([...others, resolved]);
      return resolved;
    }
  }
  return next;
};

/** How a select field's choices changed: renamed (same id, new name) and removed names. */
export interface ChoiceChanges {
  renamed: { from: string; to: string }[];
  removed: string[];
}

/**
 * The choice renames and removals between two versions of a select field, so the record layer can
 * rewrite stored cells (they hold choice names).
 */
export const choiceChanges = (before: Field, after: Field): ChoiceChanges => {
  const list = (f: Field) => (Array.isArray(f.options.choices) ? (f.options.choices as Choice[]) : []);
  const afterById = new Map(list(after).map((c) => [c.id, c]));
  const afterNames = new Set(list(after).map((c) => c.name));
  const renamed: ChoiceChanges['renamed'] = [];
  const removed: string[] = [];
  for (const choice of list(before)) {
    const now = afterById.get(choice.id);
    if (now && now.name !== choice.name) renamed.push({ from: choice.name, to: now.name });
    else if (!now && !afterNames.has(choice.name)) removed.push(choice.name);
  }
  return { renamed, removed };
};
