import { undoOrRedo } from '#shared/changes/undo-redo.ts';
import { defineHandler, Reply } from '#shared/http/handler.ts';
import { tableParams } from '#shared/schema/schema-requests.ts';

// Teable's undo (its web app's Ctrl+Z): the caller's own last record write in this window (`X-Window-Id`)
// undone from the change log as a new write, or refused saying why (`shared/changes/undo-redo.ts`).
export const handler = defineHandler(
  'undo',
  { params: tableParams },
  async ({ principal, resource, schema, headers }) =>
    new Reply(await undoOrRedo('undo', principal, resource, schema, headers['x-window-id']), { status: 201 }),
);
