import { defineHandler } from '#shared/http/handler.ts';
import { webhookParams } from '#shared/webhooks/webhook-requests.ts';
import { removeWebhook } from '#shared/webhooks/webhooks.ts';

export const handler = defineHandler('delete-webhook', { params: webhookParams }, async ({ params }) => {
  await removeWebhook(params.baseId, params.webhookId);
});
