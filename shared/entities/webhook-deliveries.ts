/**
 * A webhook's delivery attempts (`HOOKLOG#<whk>` `<dlv…>`), one item per attempt, ids ordered by
 * time so the log reads newest first; kept 30 days (TTL). `pending`: the attempt failed and the
 * event will be tried again; `failed`: it failed and the event was given up on.
 */
import { getItem, type Item, queryPage, type TransactOp, writeItems } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { count, optionalText, text } from './attributes.ts';

/** How long an attempt stays in the log. */
export const DELIVERY_LOG_SECONDS = 30 * 86_400;

export type DeliveryStatus = 'succeeded' | 'failed' | 'pending';

export interface Delivery {
  id: string;
  webhookId: string;
  eventId: string;
  /** The change-log `seq` of the event (to send it again). */
  seq: number;
  attempt: number;
  status: DeliveryStatus;
  statusCode?: number;
  latencyMs?: number;
  error?: string;
  attemptedAt: string;
}

const STATUSES: readonly DeliveryStatus[] = ['succeeded', 'failed', 'pending'];

const deliveryOf = (item: Item): Delivery => {
  const error = optionalText(item.error);
  return {
    id: text(item.id),
    webhookId: text(item.webhookId),
    eventId: text(item.eventId),
    seq: count(item.seq),
    attempt: count(item.attempt),
    status: STATUSES.find((s) => s === item.status) ?? 'failed',
    ...(typeof item.statusCode === 'number' ? { statusCode: item.statusCode } : {}),
    ...(typeof item.latencyMs === 'number' ? { latencyMs: item.latencyMs } : {}),
    ...(error ? { error } : {}),
    attemptedAt: text(item.attemptedAt),
  };
};

const deliveryPut = (d: Delivery): { put: Item } => ({
  put: {
    ...keys.webhookDelivery(d.webhookId, d.id),
    type: 'webhookDelivery',
    ...d,
    expiresAt: Math.floor(Date.parse(d.attemptedAt) / 1000) + DELIVERY_LOG_SECONDS,
  },
});

/** The operations that record attempts (to join the write that saves where delivery got to). Pure. */
export const deliveryPuts = (deliveries: readonly Delivery[]): TransactOp[] => deliveries.map(deliveryPut);

/** Records attempts (one batch write). */
export const putDeliveries = async (deliveries: readonly Delivery[]): Promise<void> => {
  if (deliveries.length) await writeItems(deliveries.map(deliveryPut));
};

/** One attempt of a webhook, or undefined. */
export const readDelivery = async (webhookId: string, deliveryId: string): Promise<Delivery | undefined> => {
  const item = await getItem(keys.webhookDelivery(webhookId, deliveryId));
  return item ? deliveryOf(item) : undefined;
};

/** A page of a webhook's attempts, newest first, from after the attempt `after` (an id). */
export const deliveriesPage = async (
  webhookId: string,
  limit: number,
  after?: string,
): Promise<{ deliveries: Delivery[]; last?: string }> => {
  const { pk } = keys.webhookDeliveriesOf(webhookId);
  const page = await queryPage({
    pk,
    limit,
    newestFirst: true,
    ...(after ? { startKey: { ...keys.webhookDelivery(webhookId, after) } } : {}),
  });
  const deliveries = page.items.map(deliveryOf);
  return { deliveries, ...(page.lastKey ? { last: deliveries.at(-1)?.id } : {}) };
};
