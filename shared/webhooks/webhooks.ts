/**
 * The webhook routes (data-flow.md 4): create (the secret shown once), list, get, update,
 * delete, rotate the secret (the old one signs alongside for 24 h), the deliveries log, and a
 * delivery sent again. At most 20 a base. A target URL is checked when set (`targets.ts`): a 400
 * names what is wrong with it.
 */
import { randomBytes } from 'node:crypto';
import { assertMayReadEvents, type EntrySource } from '#shared/auth/entry-visibility.ts';
import type { Principal } from '#shared/auth/permission.ts';
import { NotFoundError, ValidationError } from '#shared/core/errors.ts';
import { type ChangeType, headSeqOf } from '#shared/entities/change-log.ts';
import { deliveriesPage, readDelivery } from '#shared/entities/webhook-deliveries.ts';
import {
  askRedelivery,
  deleteWebhook,
  listWebhooks,
  putWebhook,
  readWebhook,
  setWebhookSecrets,
  updateWebhookSettings,
  type Webhook,
  type WebhookSettings,
} from '#shared/entities/webhooks.ts';
import { newId } from '#shared/ids.ts';
import { DEFAULT_EVENTS, stageRules } from './deliver.ts';
import { webhookQueue } from './queue.ts';
import { addressProblem, urlProblem } from './targets.ts';

/** How long a rotated-out secret keeps signing. */
export const ROTATION_OVERLAP_MS = 24 * 3600_000;
/** Delivery attempts a page of the log answers at most. */
export const DELIVERIES_PAGE = 50;

/** A new signing secret: `whsec_` and base64 of 24 random bytes (Standard Webhooks' form). */
const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/** A webhook as the routes answer it: its settings and state, never its secrets. */
export const webhookView = (w: Webhook) => ({
  id: w.id,
  baseId: w.baseId,
  url: w.url,
  events: w.events,
  ...(w.tableIds ? { tableIds: w.tableIds } : {}),
  ...(w.fieldIds ? { fieldIds: w.fieldIds } : {}),
  includePrevious: w.includePrevious,
  ...(w.description !== undefined ? { description: w.description } : {}),
  isEnabled: w.isEnabled,
  ...(w.disabledReason && !w.isEnabled ? { disabledReason: w.disabledReason } : {}),
  failuresInARow: w.failures,
  createdBy: w.createdBy,
  createdTime: w.createdTime,
  ...(w.lastModifiedTime ? { lastModifiedTime: w.lastModifiedTime } : {}),
});

/** A target URL, checked: its form, then every address its host resolves to. */
const checkedUrl = async (url: string): Promise<string> => {
  const rules = stageRules();
  const problem = urlProblem(url, rules) ?? (await addressProblem(url, rules));
  if (problem) throw new ValidationError(`url: ${problem}`, [{ path: 'body.url', message: problem }]);
  return url;
};

export interface WebhookInput {
  url: string;
  events?: string[];
  tableIds?: string[];
  fieldIds?: string[];
  includePrevious?: boolean;
  description?: string;
}

/** Who sets a webhook's events, and where: they may only choose what they may read (`assertMayReadEvents`). */
export interface WebhookAuthor {
  principal: Principal;
  source: EntrySource;
}

/** The events a webhook sends: those named (once each), or the record events. */
const eventsOf = (events: readonly string[] | undefined, author: WebhookAuthor): string[] => {
  const chosen = events?.length ? [...new Set(events)] : [...DEFAULT_EVENTS];
  assertMayReadEvents(author.principal, author.source, chosen as ChangeType[]);
  return chosen;
};

/** `POST /base/{baseId}/webhook`: the webhook, with its secret (shown here and at rotation only). */
export const createWebhook = async (baseId: string, author: WebhookAuthor, input: WebhookInput) => {
  const events = eventsOf(input.events, author);
  const url = await checkedUrl(input.url);
  const now = new Date();
  const webhook: Webhook = {
    id: newId('webhook'),
    baseId,
    url,
    events,
    ...(input.tableIds?.length ? { tableIds: input.tableIds } : {}),
    ...(input.fieldIds?.length ? { fieldIds: input.fieldIds } : {}),
    includePrevious: input.includePrevious ?? false,
    ...(input.description !== undefined ? { description: input.description } : {}),
    isEnabled: true,
    secrets: [{ secret: newSecret() }],
    createdBy: author.principal.userId,
    createdTime: now.toISOString(),
    // changes from now on: what the log held before is not sent
    cursor: await headSeqOf(baseId),
    failures: 0,
    redeliver: [],
  };
  await putWebhook(webhook);
  return { ...webhookView(webhook), secret: webhook.secrets[0]?.secret };
};

/** `GET /base/{baseId}/webhook`. */
export const listBaseWebhooks = async (baseId: string) => ({
  webhooks: (await listWebhooks(baseId)).map(webhookView),
});

/** `GET /base/{baseId}/webhook/{webhookId}`. */
export const getWebhook = async (baseId: string, webhookId: string) =>
  webhookView(await readWebhook(baseId, webhookId));

export type WebhookChanges = Partial<Omit<WebhookSettings, 'description'>> & { description?: string | null };

/** `PATCH /base/{baseId}/webhook/{webhookId}`: settings changed; enabled again, it starts where it stopped. */
export const updateWebhook = async (
  baseId: string,
  webhookId: string,
  changes: WebhookChanges,
  author: WebhookAuthor,
) => {
  const events = changes.events === undefined ? undefined : eventsOf(changes.events, author);
  const before = await readWebhook(baseId, webhookId);
  const { description, ...rest } = changes;
  const settings: Partial<WebhookSettings> & { reenabled?: boolean } = {
    ...rest,
    ...(rest.url !== undefined ? { url: await checkedUrl(rest.url) } : {}),
    ...(events !== undefined ? { events } : {}),
    ...(description !== undefined ? { description: description ?? undefined } : {}),
    ...(changes.isEnabled && !before.isEnabled ? { reenabled: true } : {}),
  };
  const after = await updateWebhookSettings(baseId, webhookId, settings, new Date());
  if (settings.reenabled) await (await webhookQueue()).wake(baseId);
  return webhookView(after);
};

/** `DELETE /base/{baseId}/webhook/{webhookId}`. */
export const removeWebhook = (baseId: string, webhookId: string) => deleteWebhook(baseId, webhookId);

/**
 * `POST …/webhook/{webhookId}/rotate-secret`: a new secret, answered once; the one it replaces
 * signs alongside for 24 h (receivers switch over meanwhile); older ones stop.
 */
export const rotateWebhookSecret = async (baseId: string, webhookId: string) => {
  const webhook = await readWebhook(baseId, webhookId);
  const now = Date.now();
  const current = webhook.secrets.find((s) => s.until === undefined);
  const secret = newSecret();
  const secrets = [
    { secret },
    ...(current ? [{ secret: current.secret, until: now + ROTATION_OVERLAP_MS }] : []),
  ];
  const after = await setWebhookSecrets(baseId, webhookId, secrets, new Date(now));
  return { ...webhookView(after), secret };
};

/** `GET …/webhook/{webhookId}/deliveries`: attempts newest first; `cursor` continues. */
export const listDeliveries = async (baseId: string, webhookId: string, cursor?: string) => {
  await readWebhook(baseId, webhookId);
  const page = await deliveriesPage(webhookId, DELIVERIES_PAGE, cursor);
  return {
    deliveries: page.deliveries.map(({ webhookId: _, seq: __, ...shown }) => shown),
    nextCursor: page.last ?? null,
  };
};

/** `POST …/deliveries/{deliveryId}/redeliver`: the attempt's event sent again (same id), soon. */
export const redeliver = async (baseId: string, webhookId: string, deliveryId: string) => {
  await readWebhook(baseId, webhookId);
  const delivery = await readDelivery(webhookId, deliveryId);
  if (!delivery) throw new NotFoundError(`Delivery ${deliveryId} not found`);
  await askRedelivery(baseId, webhookId, { deliveryId, seq: delivery.seq });
  await (await webhookQueue()).wake(baseId);
  return { deliveryId, eventId: delivery.eventId };
};
