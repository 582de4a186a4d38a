import * as z from 'zod/mini';
import { idOf, querySingle } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { webhookParams } from '#shared/webhooks/webhook-requests.ts';
import { listDeliveries } from '#shared/webhooks/webhooks.ts';

const query = z.object({ cursor: z.optional(querySingle(idOf('delivery'))) });

export const handler = defineHandler(
  'list-webhook-deliveries',
  { params: webhookParams, query },
  async ({ params, query }) => listDeliveries(params.baseId, params.webhookId, query.cursor),
);
