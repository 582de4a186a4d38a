import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { saveQueryParams } from '#shared/listing/saved-queries.ts';

const body = z.object({ params: z.record(z.string(), z.unknown()) });

export const handler = defineHandler('create-query-params', { body }, async ({ principal, body }) =>
  saveQueryParams(principal, body.params),
);
