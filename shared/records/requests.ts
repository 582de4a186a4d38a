import * as z from 'zod/mini';
import { ValidationError } from '#shared/core/errors.ts';
import { batchOf, idOf, queryList, type Schema } from '#shared/core/validation.ts';
import { fieldKeyTypeSchema, jsonObject } from '#shared/schema/requests.ts';
import { MAX_RECORDS_PER_CALL } from './limits.ts';

/** Path of routes on one record. */
export const recordParams = z.object({ tableId: idOf('table'), recordId: idOf('record') });

/** `order` of a record write (ordering.md). */
export const placement = z.object({
  viewId: idOf('view'),
  anchorId: idOf('record'),
  position: z.enum(['before', 'after']),
});

const writeOptions = {
  fieldKeyType: z.optional(fieldKeyTypeSchema),
  typecast: z.optional(z.boolean()),
  order: z.optional(placement),
};

/** A batch of records or record ids: more than 1000 is a 413, answered by the shared write functions, not a 400 here. */
export const recordBatch = <T extends Schema>(item: T, min: number) =>
  batchOf(item, min, MAX_RECORDS_PER_CALL);

/** Body of `POST /table/{tableId}/record` (create records; with `performUpsert`, create or update by key). */
export const createRecordsBody = z.object({
  records: recordBatch(z.object({ fields: jsonObject }), 0),
  ...writeOptions,
  // 1..3 fields: checked with the schema (`records/upsert.ts`), so the message can name them
  performUpsert: z.optional(z.object({ fieldsToMergeOn: z.array(z.string()) })),
});

/** Body of `PATCH /table/{tableId}/record` (update records in a batch). */
export const updateRecordsBody = z.object({
  records: recordBatch(z.object({ id: idOf('record'), fields: jsonObject }), 1),
  ...writeOptions,
});

/** Body of `PATCH /table/{tableId}/record/{recordId}` (update one record). */
export const updateRecordBody = z.object({ record: z.object({ fields: jsonObject }), ...writeOptions });

/**
 * The batch delete's ids in the query (`recordIds[]=…`, what Teable's client sends). 1000 ids
 * take ~36 KB of URL, over API Gateway's 10 KB for the request line and headers: large batches
 * use the body.
 */
export const deleteRecordsQuery = z.object({
  recordIds: z.optional(z.pipe(queryList(idOf('record')), recordBatch(z.string(), 1))),
});

/** The batch delete's ids in a JSON body `{"recordIds": [...]}`: the same rules as the query form. */
export const deleteRecordsBody = z.object({ recordIds: z.optional(recordBatch(idOf('record'), 1)) });

/**
 * The ids of a batch delete from whichever form carried them. Neither is a 400, and so is both:
 * the call deletes for good, so two lists that may differ are refused rather than one picked.
 */
export const deleteRecordIds = (
  query: { recordIds?: string[] | undefined },
  body: { recordIds?: string[] | undefined },
): string[] => {
  if (query.recordIds && body.recordIds)
    throw new ValidationError('Give recordIds in the query or in the JSON body, not both', [
      { path: 'query.recordIds', message: 'given with body.recordIds' },
      { path: 'body.recordIds', message: 'given with query.recordIds' },
    ]);
  const ids = query.recordIds ?? body.recordIds;
  if (!ids)
    throw new ValidationError(
      'recordIds is required: in the query (recordIds[]=…) or in a JSON body {"recordIds": [...]}',
      [{ path: 'query.recordIds', message: 'required (or body.recordIds)' }],
    );
  return ids;
};
