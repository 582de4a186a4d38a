import * as z from 'zod/mini';
import { exportCsv } from '#shared/bulk/export.ts';
import { idOf, querySingle } from '#shared/core/validation.ts';
import { defineHandler, Reply } from '#shared/http/handler.ts';
import { recordRights } from '#shared/records/context.ts';
import { tableParams } from '#shared/schema/schema-requests.ts';

const query = z.object({ viewId: z.optional(querySingle(idOf('view'))) });

/** The table (or a view of it) as CSV: answered directly when small, else a redirect to the file in the bucket. */
export const handler = defineHandler(
  'export-table-csv',
  { params: tableParams, query },
  async ({ query, principal, resource, schema }) => {
    const out = await exportCsv(
      { schema, userId: principal.userId, ...recordRights(principal, resource) },
      query.viewId,
    );
    const disposition = `attachment; filename*=UTF-8''${encodeURIComponent(out.filename)}`;
    return 'csv' in out
      ? new Reply(out.csv, {
          raw: true,
          headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': disposition },
        })
      : new Reply(undefined, { status: 302, headers: { location: out.location } });
  },
);
