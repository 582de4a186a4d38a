import * as z from 'zod/mini';
import { uploadThroughApi } from '#shared/attachments/files.ts';
import { text } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';

const params = z.object({ token: text(64) });

export const handler = defineHandler(
  'upload-attachment-file',
  { params },
  async ({ principal, params, rawBody }) => {
    await uploadThroughApi(principal.userId, params.token, rawBody());
    return undefined;
  },
);
