import { defineHandler } from '#shared/http/handler.ts';
import { webhookParams } from '#shared/webhooks/webhook-requests.ts';
import { rotateWebhookSecret } from '#shared/webhooks/webhooks.ts';

export const handler = defineHandler('rotate-webhook-secret', { params: webhookParams }, async ({ params }) =>
  rotateWebhookSecret(params.baseId, params.webhookId),
);
