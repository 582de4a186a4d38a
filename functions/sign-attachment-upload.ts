import * as z from 'zod/mini';
import { SIGNATURE_SECONDS, signUpload } from '#shared/attachments/files.ts';
import { idOf, text } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';

const body = z.object({
  contentType: text(255),
  contentLength: z.number().check(z.int(), z.gte(0)),
  expiresIn: z.optional(z.number().check(z.int(), z.gte(1), z.lte(SIGNATURE_SECONDS.max))),
  hash: z.optional(text(200)),
  type: z.number().check(z.int(), z.gte(1), z.lte(14)),
  baseId: z.optional(idOf('base')),
});

export const handler = defineHandler('sign-attachment-upload', { body }, async ({ principal, body }) =>
  signUpload(principal.userId, body),
);
