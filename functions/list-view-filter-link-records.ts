import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { viewFilterLinkRecords } from '#shared/listing/filter-link-records.ts';

const params = z.object({ tableId: idOf('table'), viewId: idOf('view') });

export const handler = defineHandler(
  'list-view-filter-link-records',
  { params },
  async ({ params, schema }) => viewFilterLinkRecords(schema, params.viewId),
);
