import { defineHandler } from '#shared/http/handler.ts';
import { readListParams } from '#shared/listing/params.ts';
import { clearTargets, readRanges, readRangeType } from '#shared/listing/selection.ts';
import { recordRights } from '#shared/records/context.ts';
import { updateRecords } from '#shared/records/update.ts';
import { jsonObject, tableParams } from '#shared/schema/schema-requests.ts';

/** Empties the cells a grid selection covers (computed ones are skipped), in one write. */
export const handler = defineHandler(
  'clear-selection',
  { params: tableParams, body: jsonObject },
  async ({ body, principal, resource, schema }) => {
    const ctx = { schema, userId: principal.userId, ...recordRights(principal, resource) };
    const { ranges, type, ...q } = body;
    const { recordIds, fieldIds } = await clearTargets(
      ctx,
      readListParams(q),
      readRanges(ranges),
      readRangeType(type),
      schema,
    );
    if (recordIds.length === 0 || fieldIds.length === 0) return;
    const empty = Object.fromEntries(fieldIds.map((id) => [id, null]));
    await updateRecords(principal, resource, schema, {
      records: recordIds.map((id) => ({ id, fields: empty })),
      fieldKeyType: 'id',
      typecast: false,
    });
  },
);
