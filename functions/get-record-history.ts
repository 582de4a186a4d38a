import * as z from 'zod/mini';
import { recordHistoryPage } from '#shared/changes/history.ts';
import { idOf, querySingle, text } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';

const params = z.object({ tableId: idOf('table'), recordId: idOf('record') });
const query = z.object({
  startDate: z.optional(querySingle(text(40))),
  endDate: z.optional(querySingle(text(40))),
  cursor: z.optional(querySingle(text(400))),
});

export const handler = defineHandler('get-record-history', { params, query }, async ({ params, query }) =>
  recordHistoryPage(params.tableId, params.recordId, query),
);
