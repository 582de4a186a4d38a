import * as z from 'zod/mini';
import { notifyUpload } from '#shared/attachments/files.ts';
import { querySingle, text } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';

const params = z.object({ token: text(64) });
const query = z.object({ filename: z.optional(querySingle(text(255))) });

export const handler = defineHandler(
  'notify-attachment',
  { params, query },
  async ({ principal, params, query }) => notifyUpload(principal.userId, params.token, query.filename),
);
