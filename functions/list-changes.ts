import * as z from 'zod/mini';
import { changeFeedPage, FEED_LIMIT } from '#shared/changes/feed.ts';
import { idOf, querySingle, text } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';

const params = z.object({ baseId: idOf('base') });
const query = z.object({
  cursor: z.optional(querySingle(text(200))),
  limit: z.optional(
    querySingle(
      z.pipe(
        z.string().check(z.regex(/^\d{1,4}$/, 'must be a whole number')),
        z.pipe(
          z.transform((v: string) => Number(v)),
          z.number().check(z.minimum(1), z.maximum(FEED_LIMIT.max)),
        ),
      ),
    ),
  ),
  tableId: z.optional(querySingle(idOf('table'))),
  types: z.optional(querySingle(text(500))),
});

export const handler = defineHandler('list-changes', { params, query }, async ({ params, query }) =>
  changeFeedPage(params.baseId, query),
);
