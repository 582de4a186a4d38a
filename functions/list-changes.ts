import * as z from 'zod/mini';
import { entryReader } from '#shared/auth/entry-visibility.ts';
import { changeFeedPage, FEED_LIMIT } from '#shared/changes/feed.ts';
import { idOf, querySingle, text } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';

const LIMIT_RULE = `must be a whole number from 1 to ${FEED_LIMIT.max}`;
const params = z.object({ baseId: idOf('base') });
const query = z.object({
  cursor: z.optional(querySingle(text(200))),
  limit: z.optional(
    querySingle(
      z.pipe(
        z.string().check(z.regex(/^\d+$/, LIMIT_RULE)),
        z.pipe(
          z.transform((v: string) => Number(v)),
          z.number().check(z.minimum(1, LIMIT_RULE), z.maximum(FEED_LIMIT.max, LIMIT_RULE)),
        ),
      ),
    ),
  ),
  tableId: z.optional(querySingle(idOf('table'))),
  types: z.optional(querySingle(text(500))),
});

export const handler = defineHandler(
  'list-changes',
  { params, query },
  async ({ params, query, principal, resource }) =>
    changeFeedPage(params.baseId, query, entryReader(principal, resource)),
);
