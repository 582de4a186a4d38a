import * as z from 'zod/mini';
import { idOf, listOf, queryList, querySingle } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { listPluginCenter, PLUGIN_POSITIONS } from '#shared/plugins/plugins.ts';

/** `positions`: a JSON list of positions, as Teable's client sends it (`["dashboard"]`). */
const positions = z.pipe(
  z.string().check(z.maxLength(500)),
  z.transform((value, ctx) => {
    try {
      return JSON.parse(value) as unknown;
    } catch {
      ctx.issues.push({ code: 'custom', input: value, message: 'must be a JSON list of positions' });
      return z.NEVER;
    }
  }),
);

const query = z.object({
  positions: z.optional(
    z.pipe(querySingle(positions), listOf(z.enum(PLUGIN_POSITIONS), 1, PLUGIN_POSITIONS.length * 4)),
  ),
  ids: z.optional(z.pipe(queryList(idOf('plugin')), listOf(z.string(), 1, 100))),
});

export const handler = defineHandler('list-plugin-center', { query }, async ({ query }) =>
  listPluginCenter({ positions: query.positions, ids: query.ids }),
);
