import { defineHandler } from '#shared/http/handler.ts';
import { tableParams, viewCreate } from '#shared/schema/schema-requests.ts';
import { createView } from '#shared/schema/views.ts';

export const handler = defineHandler(
  'create-view',
  { params: tableParams, body: viewCreate },
  async ({ body, principal, schema }) => createView(principal, schema, body),
);
