import * as z from 'zod/mini';
import { displayName, idOf } from '#shared/core/validation.ts';
import { pluginLookup } from '#shared/entities/plugins.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { installContextMenuPlugin } from '#shared/plugins/context-menu.ts';

const params = z.object({ tableId: idOf('table') });
// any plugin id text, as Teable takes it: one that names no plugin is a 404
const body = z.object({
  pluginId: z.string().check(z.minLength(1), z.maxLength(100)),
  name: z.optional(displayName),
});

export const handler = defineHandler(
  'install-context-menu-plugin',
  {
    params,
    body,
    // The plugin comes with authentication: no extra round trip to check it.
    preload: (_userId, { body }) => [pluginLookup(body.pluginId)],
  },
  async ({ params, body, principal, loaded }) =>
    installContextMenuPlugin({
      tableId: params.tableId,
      userId: principal.userId,
      pluginId: body.pluginId,
      plugin: loaded.valueFor(pluginLookup(body.pluginId)),
      name: body.name,
    }),
);
