import { defineHandler, Reply } from '#shared/http/handler.ts';
import { UNDO_NOT_BUILT } from '#shared/records/undo-redo.ts';
import { tableParams } from '#shared/schema/schema-requests.ts';

// Teable's undo (its web app's Ctrl+Z): not built yet, and the answer says so. Nothing is written.
export const handler = defineHandler(
  'undo',
  { params: tableParams },
  async () => new Reply(UNDO_NOT_BUILT, { status: 201 }),
);
