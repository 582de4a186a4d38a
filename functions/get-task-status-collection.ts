import { defineHandler } from '#shared/http/handler.ts';
import { tableParams } from '#shared/schema/schema-requests.ts';

/** Cells being filled by AI tasks: always none (there are no AI tasks here). */
export const handler = defineHandler('get-task-status-collection', { params: tableParams }, async () => ({
  fieldMap: {},
  cells: [],
}));
