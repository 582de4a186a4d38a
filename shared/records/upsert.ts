/**
 * Upsert by natural key (data-flow.md 8): `POST /table/{tableId}/record` with `performUpsert:
 * {fieldsToMergeOn}`. Each record of the request is matched on those fields' values — exact, after
 * the same conversion (and typecast) a write applies, case-sensitive text — against the table's
 * records: none → created, one → updated with the given fields, more than one → the whole request is
 * a 422 `ambiguous_match` naming the request's records, and nothing is written.
 *
 * Decisions where the contract is silent: every record must give a value for every field merged on
 * (an empty key matches nothing meaningful: a 400 naming it); two records of one request with the
 * same key are a 400 (which one should win?); computed, link and attachment fields cannot be
 * merged on (a 400).
 *
 * Finding matches: when a field merged on is `unique`, its claims name the one record that may match
 * (one batch read); otherwise the table's records are read once, projected to the merged fields.
 *
 * Race-free: a record created by an upsert takes a lease on its key in the same transaction
 * (`entities/upsert-leases.ts`), so of two upserts creating one key at the same moment one commits
 * and the other fails on the lease; it then matches again, finds the record and updates it (up to
 * `MAX_ATTEMPTS` tries, then a 409).
 *
 * All or nothing, as a paste that grows the grid: the new records are created first, then the
 * matched ones updated; should the update fail, the records just created are deleted again and the
 * error answered (the change log shows them come and go).
 */
import type { Principal } from '#shared/auth/permission.ts';
import type { Located } from '#shared/auth/resources.ts';
import { ConflictError, UnprocessableError, ValidationError } from '#shared/core/errors.ts';
import { logger } from '#shared/core/logger.ts';
import { getRecordParts, queryRecordParts, type RecordItem } from '#shared/entities/records.ts';
import { claimHolders } from '#shared/entities/unique-claims.ts';
import { leaseHashOf, takeLeaseStep } from '#shared/entities/upsert-leases.ts';
import type { Field } from '#shared/fields/field-types.ts';
import { newId } from '#shared/ids.ts';
import { type FieldKeyType, loadSchema, type TableSchema } from '#shared/schema/schema.ts';
import { fieldKeyOf } from './cells.ts';
import { convertWrite } from './convert-write.ts';
import { createRecords } from './create.ts';
import { deleteRecords } from './delete.ts';
import { assertBatchSize } from './limits.ts';
import { cellOf } from './model.ts';
import { uniqueText } from './unique.ts';
import { updateRecords } from './update.ts';

export interface UpsertInput {
  records: { fields: Record<string, unknown> }[];
  fieldKeyType: FieldKeyType;
  typecast: boolean;
  fieldsToMergeOn: readonly string[];
}

export interface UpsertResult {
  /** Every record of the request, in request order, as written. */
  records: RecordItem[];
  createdRecords: string[];
  updatedRecords: string[];
}

/** Tries of an upsert whose create lost a race for a key (each matches again). */
const MAX_ATTEMPTS = 5;
const UNMERGEABLE = new Set(['link', 'attachment']);

/** The fields to merge on, found by the request's key type; 1 to 3 of them, none computed. */
export const mergeFieldsOf = (
  schema: TableSchema,
  names: readonly string[],
  keyType: FieldKeyType,
): Field[] => {
  if (names.length < 1 || names.length > 3)
    throw new ValidationError('performUpsert.fieldsToMergeOn: give 1 to 3 fields to match records on', [
      { path: 'performUpsert.fieldsToMergeOn', message: `${names.length} fields given; 1 to 3 allowed` },
    ]);
  const fields = names.map((name, i) => {
    const field = schema.fields.find((f) => fieldKeyOf(f, keyType) === name || f.id === name);
    if (!field)
      throw new ValidationError(
        `performUpsert.fieldsToMergeOn[${i}]: no field ${JSON.stringify(name.slice(0, 100))}`,
      );
    if (field.isComputed || UNMERGEABLE.has(field.type))
      throw new ValidationError(
        `performUpsert.fieldsToMergeOn[${i}]: field "${field.name}" (${field.type}${field.isComputed ? ', computed' : ''}) cannot be matched on`,
      );
    return field;
  });
  if (new Set(fields.map((f) => f.id)).size !== fields.length)
    throw new ValidationError('performUpsert.fieldsToMergeOn: a field is named twice');
  return fields;
};

/** A record's key: its merged fields' stored cells as JSON; undefined when one is empty. Pure. */
export const keyOfCells = (fields: readonly Field[], cell: (field: Field) => unknown): string | undefined => {
  const values = fields.map(cell);
  return values.some((v) => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0))
    ? undefined
    : JSON.stringify(values);
};

/** Creates or updates each record of the request by its key. */
export const upsertRecords = async (
  principal: Principal,
  located: Located,
  schema: TableSchema,
  input: UpsertInput,
): Promise<UpsertResult> => {
  assertBatchSize(input.records.length);
  const fields = mergeFieldsOf(schema, input.fieldsToMergeOn, input.fieldKeyType);
  let current = schema;
  for (let attempt = 1; ; attempt++) {
    try {
      return await upsertOnce(principal, located, current, fields, input);
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      if (attempt >= MAX_ATTEMPTS)
        throw new ConflictError(`Concurrent writes kept changing the records matched; retry the request`);
      current = await loadSchema(schema.table.id);
    }
  }
};

/** The request's keys, in request order (a 400 for a record without one, or two records with one key). */
const requestKeys = async (
  principal: Principal,
  located: Located,
  schema: TableSchema,
  fields: readonly Field[],
  input: UpsertInput,
): Promise<{ keys: string[]; cells: Map<string, unknown>[] }> => {
  const { converted } = await convertWrite(principal, located, schema, input.records, input);
  const keys = converted.changes.map((cells, index) => {
    const key = keyOfCells(fields, (f) => cells.get(f.id));
    if (key === undefined)
      throw new ValidationError(
        `records[${index}]: give a value for every field to merge on (${fields.map((f) => f.name).join(', ')})`,
      );
    return key;
  });
  const first = new Map<string, number>();
  keys.forEach((key, index) => {
    const earlier = first.get(key);
    if (earlier !== undefined)
      throw new ValidationError(`records[${earlier}] and records[${index}] have the same key; send it once`, [
        { path: `records[${index}]`, message: `same key as records[${earlier}]` },
      ]);
    first.set(key, index);
  });
  return { keys, cells: converted.changes as Map<string, unknown>[] };
};

/** The records of the table holding each key (by key). */
const holdersOf = async (
  schema: TableSchema,
  fields: readonly Field[],
  keys: readonly string[],
  cells: readonly Map<string, unknown>[],
): Promise<Map<string, string[]>> => {
  const tableId = schema.table.id;
  const out = new Map<string, string[]>();
  const add = (key: string, id: string) => out.set(key, [...(out.get(key) ?? []), id]);
  const unique = fields.find((f) => f.unique);
  if (unique) {
    // a unique field's claims name the one record that may hold each key (claims ignore case)
    const texts = cells.map((c) => uniqueText(c.get(unique.id) as never));
    const holders = await claimHolders(tableId, unique.id, [...new Set(texts)]);
    const candidates = [...new Set(holders.values())];
    const parts = candidates.length
      ? await getRecordParts(
          tableId,
          candidates,
          fields.map((f) => f.id),
        )
      : new Map();
    for (const part of parts.values()) {
      const key = keyOfCells(fields, (f) => cellOf(part, f));
      if (key !== undefined && keys.includes(key)) add(key, part.id);
    }
    return out;
  }
  const wanted = new Set(keys);
  for (const part of await queryRecordParts(
    tableId,
    fields.map((f) => f.id),
  )) {
    const key = keyOfCells(fields, (f) => cellOf(part, f));
    if (key !== undefined && wanted.has(key)) add(key, part.id);
  }
  return out;
};

const upsertOnce = async (
  principal: Principal,
  located: Located,
  schema: TableSchema,
  fields: readonly Field[],
  input: UpsertInput,
): Promise<UpsertResult> => {
  const tableId = schema.table.id;
  const { keys, cells } = await requestKeys(principal, located, schema, fields, input);
  const holders = await holdersOf(schema, fields, keys, cells);
  const ambiguous = keys.flatMap((key, index) => {
    const ids = holders.get(key) ?? [];
    return ids.length > 1 ? [{ index, ids }] : [];
  });
  if (ambiguous.length)
    throw new UnprocessableError(
      'ambiguous_match',
      `${ambiguous.length} record(s) of the request match more than one record; nothing was written`,
      ambiguous.map(({ index, ids }) => ({
        path: `records[${index}]`,
        message: `matches ${ids.length} records: ${ids.slice(0, 10).join(', ')}`,
      })),
    );
  const creates = keys.flatMap((key, index) =>
    holders.has(key) ? [] : [{ index, key, id: newId('record') }],
  );
  const updates = keys.flatMap((key, index) => {
    const id = holders.get(key)?.[0];
    return id ? [{ index, id }] : [];
  });
  const now = new Date();
  const fieldIds = fields.map((f) => f.id);
  const created = creates.length
    ? await createRecords(principal, located, schema, {
        records: creates.map((c) => input.records[c.index] as { fields: Record<string, unknown> }),
        fieldKeyType: input.fieldKeyType,
        typecast: input.typecast,
        ids: creates.map((c) => c.id),
        alsoSteps: creates.map((c) => takeLeaseStep(tableId, leaseHashOf(fieldIds, c.key), c.id, now)),
      })
    : [];
  let updated: RecordItem[] = [];
  try {
    if (updates.length)
      updated = await updateRecords(
        principal,
        located,
        // a create may have added select choices: the update reads the schema as it now is
        created.length ? await loadSchema(tableId) : schema,
        {
          records: updates.map((u) => ({
            id: u.id,
            fields: (input.records[u.index] as { fields: Record<string, unknown> }).fields,
          })),
          fieldKeyType: input.fieldKeyType,
          typecast: input.typecast,
        },
      );
  } catch (error) {
    if (created.length)
      await deleteRecords(
        await loadSchema(tableId),
        created.map((r) => r.id),
      ).catch((undoError: unknown) =>
        logger.error('upsert: deleting the records created before the update failed', {
          error: undoError as Error,
          created: created.map((r) => r.id),
        }),
      );
    throw error;
  }
  const byIndex = new Map<number, RecordItem>();
  for (const [i, c] of creates.entries()) byIndex.set(c.index, created[i] as RecordItem);
  for (const [i, u] of updates.entries()) byIndex.set(u.index, updated[i] as RecordItem);
  return {
    records: keys.map((_, index) => byIndex.get(index) as RecordItem),
    createdRecords: creates.map((c) => c.id),
    updatedRecords: updates.map((u) => u.id),
  };
};
