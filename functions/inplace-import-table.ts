import * as z from 'zod/mini';
import { importFileOf, startInplaceImport } from '#shared/bulk/import.ts';
import { idOf, text } from '#shared/core/validation.ts';
import { defineHandler, Reply } from '#shared/http/handler.ts';

const params = z.object({ baseId: idOf('base'), tableId: idOf('table') });
const body = z.object({
  attachmentUrl: text(4096),
  fileType: z.enum(['csv', 'excel']),
  insertConfig: z.object({
    sourceWorkSheetKey: z.string(),
    excludeFirstRow: z.boolean(),
    sourceColumnMap: z.record(z.string(), z.nullable(z.number())),
  }),
  notification: z.optional(z.boolean()),
});

/** Rows of an uploaded CSV appended to the table through a column map, by the worker; answered at once. */
export const handler = defineHandler(
  'inplace-import-table',
  { params, body },
  async ({ principal, schema, body }) => {
    const file = await importFileOf(principal, body.attachmentUrl, body.fileType, schema.table.baseId);
    await startInplaceImport(principal, schema, {
      file,
      sheet: body.insertConfig.sourceWorkSheetKey,
      sourceColumnMap: body.insertConfig.sourceColumnMap,
      excludeFirstRow: body.insertConfig.excludeFirstRow,
    });
    return new Reply(undefined, { status: 200 });
  },
);
