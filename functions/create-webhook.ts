import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { createWebhookBody } from '#shared/webhooks/webhook-requests.ts';
import { createWebhook } from '#shared/webhooks/webhooks.ts';

const params = z.object({ baseId: idOf('base') });

export const handler = defineHandler(
  'create-webhook',
  { params, body: createWebhookBody },
  async ({ params, body, principal, resource }) =>
    createWebhook(params.baseId, { principal, source: resource }, body),
);
