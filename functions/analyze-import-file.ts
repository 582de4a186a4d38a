import * as z from 'zod/mini';
import { analyzeFile } from '#shared/bulk/import.ts';
import { querySingle, text } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';

const query = z.object({
  attachmentUrl: querySingle(text(4096)),
  fileType: querySingle(z.enum(['csv', 'excel'])),
});

/** The columns of an uploaded CSV's head, with the types an import would give them. */
export const handler = defineHandler('analyze-import-file', { query }, ({ principal, query }) =>
  analyzeFile(principal, query.attachmentUrl, query.fileType),
);
