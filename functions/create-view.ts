import { defineHandler } from '#shared/http/handler.ts';
import { tableParams, viewCreate } from '#shared/schema/requests.ts';
import { loadSchema } from '#shared/schema/schema.ts';
import { createView } from '#shared/schema/views.ts';

export const handler = defineHandler(
  'create-view',
  { params: tableParams, body: viewCreate, resource: { kind: 'table', param: 'tableId' } },
  async ({ params, resource, body, principal }) =>
    createView(principal, await loadSchema(params.tableId, resource.table), body),
);
