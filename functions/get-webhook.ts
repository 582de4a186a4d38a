import { defineHandler } from '#shared/http/handler.ts';
import { webhookParams } from '#shared/webhooks/webhook-requests.ts';
import { getWebhook } from '#shared/webhooks/webhooks.ts';

export const handler = defineHandler('get-webhook', { params: webhookParams }, async ({ params }) =>
  getWebhook(params.baseId, params.webhookId),
);
