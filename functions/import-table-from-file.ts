import * as z from 'zod/mini';
import { importedFields, importFileOf, startTableImport } from '#shared/bulk/import.ts';
import { ValidationError } from '#shared/core/errors.ts';
import { idOf, text } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { createTable, toCreatedTable } from '#shared/tables/tables.ts';

const params = z.object({ baseId: idOf('base') });
const column = z.object({
  type: z.string(),
  name: text(255),
  sourceColumnIndex: z.number().check(z.int(), z.gte(0)),
  // ours (Teable's column has none): the field's options; without them a number's precision comes from the file
  options: z.optional(z.record(z.string(), z.unknown())),
});
const body = z.object({
  worksheets: z.record(
    z.string(),
    z.object({
      name: text(255),
      columns: z.array(column).check(z.minLength(1), z.maxLength(500)),
      useFirstRowAsHeader: z.boolean(),
      importData: z.boolean(),
    }),
  ),
  attachmentUrl: text(4096),
  fileType: z.enum(['csv', 'excel']),
  notification: z.optional(z.boolean()),
  tz: z.optional(z.string()),
});

/** A new table per worksheet (a CSV has one), answered at once; its rows are imported by the worker. */
export const handler = defineHandler(
  'import-table-from-file',
  { params, body },
  async ({ principal, resource, body }) => {
    const sheets = Object.entries(body.worksheets);
    if (!sheets.length) throw new ValidationError('worksheets: name at least one');
    if (body.fileType === 'csv' && sheets.length !== 1)
      throw new ValidationError('worksheets: a CSV file has one worksheet');
    const file = await importFileOf(principal, body.attachmentUrl, body.fileType, resource.id);
    const tables = [];
    for (const [key, sheet] of sheets) {
      const { schema } = await createTable(principal, resource, {
        name: sheet.name,
        fields: await importedFields(file, key, sheet.columns, sheet.useFirstRowAsHeader),
        records: [],
      });
      if (sheet.importData)
        await startTableImport(principal, resource, {
          file,
          sheet: key,
          schema,
          columns: sheet.columns,
          useFirstRowAsHeader: sheet.useFirstRowAsHeader,
        });
      // as `tableVoSchema` types it: a description or icon not set is absent, not null
      const { description, icon, ...table } = toCreatedTable(schema, []);
      tables.push({
        ...table,
        ...(description == null ? {} : { description }),
        ...(icon == null ? {} : { icon }),
      });
    }
    return tables;
  },
);
