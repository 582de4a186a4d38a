import * as z from 'zod/mini';
import { parseInput } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { calendarDailyCollection } from '#shared/listing/aggregate.ts';
import { listQuery as query, readListParams } from '#shared/listing/params.ts';
import { recordRights } from '#shared/records/context.ts';
import { tableParams } from '#shared/schema/schema-requests.ts';

const windowSchema = z.object({
  startDate: z.string(),
  endDate: z.string(),
  startDateFieldId: z.string(),
  endDateFieldId: z.string(),
  timeZone: z.optional(z.string()),
});

/** Per day of a window, how many records' date spans cover it, and those records. */
export const handler = defineHandler(
  'get-calendar-daily-collection',
  { params: tableParams, query },
  async ({ query, principal, resource, schema }) => {
    const raw = query ?? {};
    const window = parseInput(windowSchema, raw, 'query');
    const params = readListParams(raw);
    const ctx = { schema, userId: principal.userId, ...recordRights(principal, resource) };
    return calendarDailyCollection(ctx, params, window);
  },
);
