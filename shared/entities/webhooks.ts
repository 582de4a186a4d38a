/**
 * A base's webhooks (`HOOKS#<bse>` `<whk>`), with a counter (`#COUNT`) that keeps them at 20 a
 * base, and the webhooks waiting to try a delivery again (`HOOKRETRY` `<whk>`). One item holds a
 * webhook's settings, its signing secrets and where its delivery got to (`cursor`: the last
 * change-log `seq` it is done with; `retry`: the event it is trying again). Deliveries of one
 * webhook are made by one sender at a time: a sender claims the webhook with a lease; a sender
 * that finds it claimed leaves a note (`again`) so that the holder reads the log once more before
 * it lets go, and no change waits for the next one.
 */
import { ConflictError, NotFoundError } from '#shared/core/errors.ts';
import {
  deleteItems,
  getItem,
  type Item,
  queryAll,
  type TransactOp,
  transact,
  updateItem,
} from '#shared/db/client.ts';
import { and, EXISTS, NOT_EXISTS, or } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';
import { count, isMap, optionalText, text, textsOrNull } from './attributes.ts';

/** At most this many webhooks a base. */
export const MAX_WEBHOOKS_PER_BASE = 20;

export interface WebhookSecret {
  secret: string;
  /** Epoch ms until which an older secret still signs (absent: the current one). */
  until?: number;
}

/** The event a webhook is trying again. */
export interface WebhookRetry {
  seq: number;
  attempt: number;
  firstAttemptAt: number;
  nextAttemptAt: number;
}

export interface WebhookSettings {
  url: string;
  events: string[];
  tableIds?: string[];
  fieldIds?: string[];
  includePrevious: boolean;
  description?: string;
  isEnabled: boolean;
}

export interface Webhook extends WebhookSettings {
  id: string;
  baseId: string;
  secrets: WebhookSecret[];
  createdBy: string;
  createdTime: string;
  lastModifiedTime?: string;
  /** The last change-log `seq` delivered, given up on or not matching. */
  cursor: number;
  retry?: WebhookRetry;
  /** Deliveries failed in a row, and since when (epoch ms). */
  failures: number;
  failingSince?: number;
  /** Why it was disabled by the sender (failing). */
  disabledReason?: string;
  /** Deliveries asked to be sent again: the attempt asked about and its event's `seq`. */
  redeliver: { deliveryId: string; seq: number }[];
}

const COUNT_SK = '#COUNT';

const texts = (value: unknown): string[] | undefined => textsOrNull(value) ?? undefined;

const retryOf = (value: unknown): WebhookRetry | undefined =>
  isMap(value)
    ? {
        seq: count(value.seq),
        attempt: count(value.attempt),
        firstAttemptAt: count(value.firstAttemptAt),
        nextAttemptAt: count(value.nextAttemptAt),
      }
    : undefined;

const webhookOf = (item: Item): Webhook => {
  const tableIds = texts(item.tableIds);
  const fieldIds = texts(item.fieldIds);
  const description = optionalText(item.description);
  const retry = retryOf(item.retry);
  const disabledReason = optionalText(item.disabledReason);
  const lastModifiedTime = optionalText(item.lastModifiedTime);
  return {
    id: text(item.id),
    baseId: text(item.baseId),
    url: text(item.url),
    events: texts(item.events) ?? [],
    ...(tableIds ? { tableIds } : {}),
    ...(fieldIds ? { fieldIds } : {}),
    includePrevious: item.includePrevious === true,
    ...(description !== undefined ? { description } : {}),
    isEnabled: item.isEnabled !== false,
    secrets: (Array.isArray(item.secrets) ? item.secrets : []).filter(isMap).map((s) => ({
      secret: text(s.secret),
      ...(typeof s.until === 'number' ? { until: s.until } : {}),
    })),
    createdBy: text(item.createdBy),
    createdTime: text(item.createdTime),
    ...(lastModifiedTime ? { lastModifiedTime } : {}),
    cursor: count(item.cursor),
    ...(retry ? { retry } : {}),
    failures: count(item.failures),
    ...(typeof item.failingSince === 'number' ? { failingSince: item.failingSince } : {}),
    ...(disabledReason ? { disabledReason } : {}),
    redeliver: (Array.isArray(item.redeliver) ? item.redeliver : []).filter(isMap).map((r) => ({
      deliveryId: text(r.deliveryId),
      seq: count(r.seq),
    })),
  };
};

const notFound = (id: string) => new NotFoundError(`Webhook ${id} not found`);

/** Creates a webhook, as the base's 21st a 409 `limit_exceeded`. */
export const putWebhook = async (webhook: Webhook): Promise<void> => {
  const counter = { pk: keys.webhooksOf(webhook.baseId).pk, sk: COUNT_SK };
  await transact(
    [
      {
        update: {
          key: counter,
          update: 'SET #type = :type ADD n :one',
          condition: or('attribute_not_exists(n)', 'n < :max'),
          names: { '#type': 'type' },
          values: { ':type': 'webhookCount', ':one': 1, ':max': MAX_WEBHOOKS_PER_BASE },
        },
      },
      {
        put: { ...keys.webhook(webhook.baseId, webhook.id), type: 'webhook', ...webhook },
        condition: NOT_EXISTS,
      },
    ],
    (index) =>
      index === 0
        ? new ConflictError(`A base has at most ${MAX_WEBHOOKS_PER_BASE} webhooks`, 'limit_exceeded')
        : new ConflictError('A webhook with this id exists'),
  );
};

/** Whether a base has any webhook (one small read: the counter). */
export const hasWebhooks = async (baseId: string): Promise<boolean> =>
  count((await getItem({ pk: keys.webhooksOf(baseId).pk, sk: COUNT_SK }))?.n) > 0;

/** A base's webhook, or a 404. */
export const readWebhook = async (baseId: string, webhookId: string): Promise<Webhook> => {
  const item = await getItem(keys.webhook(baseId, webhookId));
  if (!item) throw notFound(webhookId);
  return webhookOf(item);
};

/** Every webhook of a base, oldest first. */
export const listWebhooks = async (baseId: string): Promise<Webhook[]> =>
  (await queryAll({ ...keys.webhooksOf(baseId), skPrefix: 'whk' })).map(webhookOf);

/** Changes a webhook's settings (`undefined` removes an optional one); answers it as it is now. */
export const updateWebhookSettings = async (
  baseId: string,
  webhookId: string,
  changes: Partial<WebhookSettings> & { reenabled?: boolean },
  now: Date,
): Promise<Webhook> => {
  const sets: string[] = ['lastModifiedTime = :now'];
  const removes: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':now': now.toISOString() };
  for (const [name, value] of Object.entries(changes)) {
    if (name === 'reenabled') continue;
    names[`#${name}`] = name;
    if (value === undefined) removes.push(`#${name}`);
    else {
      sets.push(`#${name} = :${name}`);
      values[`:${name}`] = value;
    }
  }
  // enabled again by hand: its failures start over
  if (changes.reenabled) {
    sets.push('failures = :zero');
    values[':zero'] = 0;
    removes.push('failingSince', 'disabledReason');
  }
  const item = await updateItem(
    {
      key: keys.webhook(baseId, webhookId),
      update: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
      condition: EXISTS,
      names: Object.keys(names).length ? names : undefined,
      values,
    },
    () => notFound(webhookId),
  );
  return webhookOf(item);
};

/** Replaces a webhook's secrets (a rotation keeps the old one signing for a while). */
export const setWebhookSecrets = async (
  baseId: string,
  webhookId: string,
  secrets: readonly WebhookSecret[],
  now: Date,
): Promise<Webhook> =>
  webhookOf(
    await updateItem(
      {
        key: keys.webhook(baseId, webhookId),
        update: 'SET secrets = :secrets, lastModifiedTime = :now',
        condition: EXISTS,
        values: { ':secrets': secrets, ':now': now.toISOString() },
      },
      () => notFound(webhookId),
    ),
  );

/** Deletes a webhook (its delivery log goes with TTL). */
export const deleteWebhook = async (baseId: string, webhookId: string): Promise<void> =>
  transact(
    [
      { delete: keys.webhook(baseId, webhookId), condition: EXISTS },
      {
        update: {
          key: { pk: keys.webhooksOf(baseId).pk, sk: COUNT_SK },
          update: 'ADD n :minus',
          values: { ':minus': -1 },
        },
      },
      { delete: keys.webhookRetry(webhookId) },
    ],
    () => notFound(webhookId),
  );

/** Deletes every webhook of a base, with its counter and retries (a base deleted for good). */
export const deleteBaseWebhooks = async (baseId: string): Promise<void> => {
  const webhooks = await listWebhooks(baseId);
  await deleteItems([
    ...webhooks.flatMap((w) => [keys.webhook(baseId, w.id), keys.webhookRetry(w.id)]),
    { pk: keys.webhooksOf(baseId).pk, sk: COUNT_SK },
  ]);
};

/** Asks for a delivery to be sent again (its event, by `seq`). */
export const askRedelivery = async (
  baseId: string,
  webhookId: string,
  ask: { deliveryId: string; seq: number },
): Promise<void> => {
  await updateItem(
    {
      key: keys.webhook(baseId, webhookId),
      update: 'SET redeliver = list_append(if_not_exists(redeliver, :none), :ask)',
      condition: EXISTS,
      values: { ':none': [], ':ask': [ask] },
    },
    () => notFound(webhookId),
    'NONE',
  );
};

// --- the sender's side ------------------------------------------------------------------------

/** How long a sender's claim on a webhook lasts without being renewed. */
export const CLAIM_MS = 60_000;

/**
 * Claims a webhook for one sender until `now + CLAIM_MS`: the webhook, or undefined when another
 * sender holds it (which is then told to read the log again before it lets go) or it is gone.
 */
export const claimWebhook = async (
  baseId: string,
  webhookId: string,
  claim: string,
  now: number,
): Promise<Webhook | undefined> => {
  const key = keys.webhook(baseId, webhookId);
  try {
    const item = await updateItem(
      {
        key,
        update: 'SET claim = :claim, claimUntil = :until REMOVE again',
        condition: and(EXISTS, or('attribute_not_exists(claimUntil)', 'claimUntil < :now')),
        values: { ':claim': claim, ':until': now + CLAIM_MS, ':now': now },
      },
      () => new ConflictError('claimed'),
    );
    return webhookOf(item);
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    await updateItem(
      { key, update: 'SET again = :yes', condition: EXISTS, values: { ':yes': true } },
      () => new ConflictError('gone'),
      'NONE',
    ).catch((e: unknown) => {
      if (!(e instanceof ConflictError)) throw e;
    });
    return undefined;
  }
};

/** Where a webhook's delivery got to, as the sender saves it. */
export interface DeliveryState {
  cursor: number;
  retry?: WebhookRetry;
  failures: number;
  failingSince?: number;
  isEnabled: boolean;
  disabledReason?: string;
  /** Redeliveries done (removed from the list by their ids). */
  redelivered?: readonly string[];
}

class ClaimLost extends ConflictError {}

/**
 * Saves where delivery got to, while the sender's claim holds (renewing it), with the retry
 * item kept in step and the attempts made (`also`), in one transaction. False when the claim was
 * lost (another sender took over: this one stops).
 */
export const saveDeliveryState = async (
  webhook: Pick<Webhook, 'id' | 'baseId' | 'redeliver'>,
  claim: string,
  state: DeliveryState,
  now: number,
  /** More puts of the same write (the attempts made since the last save). */
  also: readonly TransactOp[] = [],
): Promise<boolean> => {
  const done = new Set(state.redelivered ?? []);
  const redeliver = webhook.redeliver.filter((r) => !done.has(r.deliveryId));
  const sets = [
    '#cursor = :cursor',
    'failures = :failures',
    'isEnabled = :enabled',
    'claimUntil = :until',
    ...(state.retry ? ['retry = :retry'] : []),
    ...(state.failingSince !== undefined ? ['failingSince = :since'] : []),
    ...(state.disabledReason ? ['disabledReason = :reason'] : []),
    ...(done.size ? ['redeliver = :redeliver'] : []),
  ];
  const removes = [
    ...(state.retry ? [] : ['retry']),
    ...(state.failingSince === undefined ? ['failingSince'] : []),
  ];
  const ops: TransactOp[] = [
    {
      update: {
        key: keys.webhook(webhook.baseId, webhook.id),
        update: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
        condition: and(EXISTS, 'claim = :claim'),
        // `cursor` is a reserved word of DynamoDB's expressions
        names: { '#cursor': 'cursor' },
        values: {
          ':cursor': state.cursor,
          ':failures': state.failures,
          ':enabled': state.isEnabled,
          ':until': now + CLAIM_MS,
          ':claim': claim,
          ...(state.retry ? { ':retry': state.retry } : {}),
          ...(state.failingSince !== undefined ? { ':since': state.failingSince } : {}),
          ...(state.disabledReason ? { ':reason': state.disabledReason } : {}),
          ...(done.size ? { ':redeliver': redeliver } : {}),
        },
      },
    },
    state.retry && state.isEnabled
      ? {
          put: {
            ...keys.webhookRetry(webhook.id),
            type: 'webhookRetry',
            baseId: webhook.baseId,
            webhookId: webhook.id,
            nextAttemptAt: state.retry.nextAttemptAt,
          },
        }
      : { delete: keys.webhookRetry(webhook.id) },
    ...also,
  ];
  try {
    await transact(ops, () => new ClaimLost('claim lost'));
    webhook.redeliver.splice(0, webhook.redeliver.length, ...redeliver);
    return true;
  } catch (error) {
    if (error instanceof ClaimLost) return false;
    throw error;
  }
};

/**
 * Lets go of a claim: true when done, false when another sender asked meanwhile (`again`) — the
 * claim is then kept and the note cleared, and the holder reads the log once more.
 */
export const releaseWebhook = async (baseId: string, webhookId: string, claim: string): Promise<boolean> => {
  const key = keys.webhook(baseId, webhookId);
  try {
    await updateItem(
      {
        key,
        update: 'REMOVE claim, claimUntil',
        condition: and(EXISTS, 'claim = :claim', 'attribute_not_exists(again)'),
        values: { ':claim': claim },
      },
      () => new ConflictError('asked again'),
      'NONE',
    );
    return true;
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    try {
      await updateItem(
        {
          key,
          update: 'REMOVE again',
          condition: and(EXISTS, 'claim = :claim'),
          values: { ':claim': claim },
        },
        () => new ConflictError('gone'),
        'NONE',
      );
      return false;
    } catch (e) {
      if (e instanceof ConflictError) return true; // gone, or claimed by another: nothing left to do here
      throw e;
    }
  }
};

/** The webhooks whose retry is due by `now` (at most a page; the sweep runs every minute). */
export const dueRetries = async (now: number): Promise<{ baseId: string; webhookId: string }[]> =>
  (await queryAll(keys.webhookRetries()))
    .filter((item) => count(item.nextAttemptAt) <= now)
    .map((item) => ({ baseId: text(item.baseId), webhookId: text(item.webhookId) }));
