import * as z from 'zod/mini';
import { idOf } from './schemas.ts';
import { fieldKeyTypeSchema, jsonObject } from './table-schemas.ts';
import { listOf } from './validation.ts';

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

// More than 1000 records is a 413, answered by the shared write functions, not a 400 here.
const ANY = Number.MAX_SAFE_INTEGER;

/** Body of ★5. */
export const createRecordsBody = z.object({
  records: listOf(z.object({ fields: jsonObject }), 0, ANY),
  ...writeOptions,
});

/** Body of ★6. */
export const updateRecordsBody = z.object({
  records: listOf(z.object({ id: idOf('record'), fields: jsonObject }), 1, ANY),
  ...writeOptions,
});

/** Body of ★2. */
export const updateRecordBody = z.object({ record: z.object({ fields: jsonObject }), ...writeOptions });
