import { ValidationError } from '#shared/core/errors.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { listQuery as query, readListParams } from '#shared/listing/params.ts';
import { rangeToIds, readRanges, readRangeType } from '#shared/listing/selection.ts';
import { recordRights } from '#shared/records/context.ts';
import { tableParams } from '#shared/schema/schema-requests.ts';

const returnTypeOf = (raw: unknown): 'recordId' | 'fieldId' | 'all' => {
  const v = Array.isArray(raw) ? raw[0] : raw;
  if (v === 'recordId' || v === 'fieldId' || v === 'all') return v;
  throw new ValidationError('returnType: must be "recordId", "fieldId" or "all"');
};

/** The record and field ids a grid selection covers. */
export const handler = defineHandler(
  'get-selection-range-to-id',
  { params: tableParams, query },
  async ({ query = {}, principal, resource, schema }) => {
    const ctx = { schema, userId: principal.userId, ...recordRights(principal, resource) };
    return rangeToIds(
      ctx,
      readListParams(query),
      readRanges(query.ranges),
      readRangeType(query.type),
      returnTypeOf(query.returnType),
    );
  },
);
