import { defineHandler } from '#shared/http/handler.ts';
import { listQuery as query } from '#shared/listing/params.ts';
import { tableParams } from '#shared/schema/schema-requests.ts';

// Comments are not built: no record has any, so the answer is honestly empty (Teable's grid asks
// this on every render; it lists only records with comments).
export const handler = defineHandler('get-comment-counts', { params: tableParams, query }, async () => []);
