import { undoOrRedo } from '#shared/changes/undo-redo.ts';
import { defineHandler, Reply } from '#shared/http/handler.ts';
import { tableParams } from '#shared/schema/schema-requests.ts';

// Teable's redo (its web app's Ctrl+Shift+Z): the caller's own last record write in this window (`X-Window-Id`)
// redone from the change log as a new write, or refused saying why (`shared/changes/undo-redo.ts`).
export const handler = defineHandler(
  'redo',
  { params: tableParams },
  async ({ principal, resource, schema, headers }) =>
    new Reply(await undoOrRedo('redo', principal, resource, schema, headers['x-window-id']), { status: 201 }),
);
