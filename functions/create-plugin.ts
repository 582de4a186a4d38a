import * as z from 'zod/mini';
import { displayName, text } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { createPlugin, PLUGIN_POSITIONS } from '#shared/plugins/plugins.ts';

const body = z.object({
  name: displayName,
  description: z.optional(text(2000)),
  positions: z.array(z.enum(PLUGIN_POSITIONS)).check(
    z.minLength(1),
    z.refine((p) => new Set(p).size === p.length, { error: 'must not repeat a position' }),
  ),
  url: z.optional(z.url({ protocol: /^https?$/ }).check(z.maxLength(2048))),
});

export const handler = defineHandler('create-plugin', { body }, async ({ principal, body }) =>
  createPlugin(principal, body),
);
