import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { redeliver } from '#shared/webhooks/webhooks.ts';

const params = z.object({ baseId: idOf('base'), webhookId: idOf('webhook'), deliveryId: idOf('delivery') });

export const handler = defineHandler('redeliver-webhook', { params }, async ({ params }) =>
  redeliver(params.baseId, params.webhookId, params.deliveryId),
);
