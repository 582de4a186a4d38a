import { defineHandler } from '#shared/http/handler.ts';
import { updateWebhookBody, webhookParams } from '#shared/webhooks/webhook-requests.ts';
import { updateWebhook } from '#shared/webhooks/webhooks.ts';

export const handler = defineHandler(
  'update-webhook',
  { params: webhookParams, body: updateWebhookBody },
  async ({ params, body, principal, resource }) =>
    updateWebhook(params.baseId, params.webhookId, body, { principal, source: resource }),
);
