import { defineHandler } from '#shared/http/handler.ts';
import { tableParams, viewCreate } from '#shared/http/table-schemas.ts';
import { loadSchema } from '#shared/tables/schema.ts';
import { createView } from '#shared/tables/views.ts';

export const handler = defineHandler(
  'create-view',
  { params: tableParams, body: viewCreate, resource: { kind: 'table', param: 'tableId' } },
  async ({ params, resource, body, principal }) =>
    createView(principal, await loadSchema(params.tableId, resource.table), body),
);
