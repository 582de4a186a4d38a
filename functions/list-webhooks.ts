import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { listBaseWebhooks } from '#shared/webhooks/webhooks.ts';

const params = z.object({ baseId: idOf('base') });

export const handler = defineHandler('list-webhooks', { params }, async ({ params }) =>
  listBaseWebhooks(params.baseId),
);
