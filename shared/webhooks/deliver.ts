/**
 * Delivering a base's changes to its webhooks (data-flow.md 4), fed by the change log: each
 * webhook reads the log from where it got to (`cursor`) and posts every entry its filters match,
 * in `seq` order, one at a time, signed the Standard Webhooks way; its state is saved after each
 * attempt (at least once: an event whose success was not saved yet is sent again, with the same
 * id). A failed attempt stops that webhook until its retry is due (`schedule.ts`); the others go
 * on — each runs apart, with its own 10 s limit per attempt, so a slow or dead receiver delays
 * only its own deliveries. After 24 hours of retries an event is given up on (the delivery
 * failed) and the webhook goes on with the next; 5 such failures in a row or 3 days of failing
 * disable it, and the base's owners are notified.
 *
 * Who runs it: the webhook sender (`functions/workers/webhook-sender.ts` in the cloud, fed by the
 * stream processor after it writes a base's entries and by the sweep of due retries; the local
 * server runs the same in process).
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Webhook as Signer } from 'standardwebhooks';
import { config } from '#shared/config.ts';
import { ConflictError } from '#shared/core/errors.ts';
import { logger } from '#shared/core/logger.ts';
import { transact } from '#shared/db/commit.ts';
import { readBase } from '#shared/entities/bases.ts';
import { type ChangeEntry, changesAfter } from '#shared/entities/change-log.ts';
import { readMembers } from '#shared/entities/members.ts';
import { notificationOps } from '#shared/entities/notifications.ts';
import { type Delivery, deliveryPuts } from '#shared/entities/webhook-deliveries.ts';
import {
  claimWebhook,
  type DeliveryState,
  dueRetries,
  listWebhooks,
  readWebhook,
  releaseWebhook,
  saveDeliveryState,
  type Webhook,
} from '#shared/entities/webhooks.ts';
import { newTimeOrderedId } from '#shared/ids.ts';
import { DELIVERY_TIMEOUT_MS, givenUp, retryDelayMs, toDisable } from './retry-schedule.ts';
import { addressProblem, safeLookup, type TargetRules } from './targets.ts';

/** The record events a webhook gets when it names none. */
export const DEFAULT_EVENTS = ['record.created', 'record.updated', 'record.deleted'] as const;

/** What a delivery run may be told (tests: a clock, a shorter limit, no jitter). */
export interface DeliveryOptions {
  now?: () => number;
  timeoutMs?: number;
  random?: () => number;
  rules?: TargetRules;
  /** Epoch ms after which no attempt starts (a Lambda's time); the run answers to be woken again at once. */
  deadline?: number;
}

/** The rules of this stage: local mode allows http and loopback. */
export const stageRules = (): TargetRules => ({ local: config.stage === 'local' });

/** Whether an entry is one the webhook asked for: its events, tables and (updates) fields. Pure. */
export const matches = (
  webhook: Pick<Webhook, 'events' | 'tableIds' | 'fieldIds'>,
  entry: ChangeEntry,
): boolean => {
  if (!webhook.events.includes(entry.type)) return false;
  if (webhook.tableIds?.length && !webhook.tableIds.includes(entry.tableId)) return false;
  if (entry.type === 'record.updated' && webhook.fieldIds?.length) {
    const changed = Object.keys(entry.after ?? {});
    if (!webhook.fieldIds.some((f) => changed.includes(f))) return false;
  }
  return true;
};

/**
 * The body posted for an entry: `{id, type, baseId, tableId, seq, occurredAt, data}`, `data` the
 * feed entry — without the values before an update unless the webhook asked for them
 * (`includePrevious`). Pure.
 */
export const eventBody = (webhook: Pick<Webhook, 'includePrevious'>, entry: ChangeEntry): string => {
  const { before, ...rest } = entry;
  const data = entry.type === 'record.updated' && !webhook.includePrevious ? rest : entry;
  return JSON.stringify({
    id: entry.id,
    type: entry.type,
    baseId: entry.baseId,
    tableId: entry.tableId,
    seq: entry.seq,
    occurredAt: entry.occurredAt,
    data,
  });
};

/**
 * The Standard Webhooks headers of a body: `webhook-id`, `webhook-timestamp` and one `v1,`
 * signature per secret that still signs (during a rotation, the new and the old). Pure.
 */
export const signedHeaders = (
  webhook: Pick<Webhook, 'secrets'>,
  eventId: string,
  body: string,
  now: number,
): Record<string, string> => {
  const at = new Date(Math.floor(now / 1000) * 1000);
  const signatures = webhook.secrets
    .filter((s) => s.until === undefined || s.until > now)
    .map((s) => new Signer(s.secret).sign(eventId, at, body));
  return {
    'content-type': 'application/json',
    'user-agent': 'workspace-api-webhooks/1',
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(now / 1000)),
    'webhook-signature': signatures.join(' '),
  };
};

/** What an attempt came to. */
export interface PostOutcome {
  ok: boolean;
  statusCode?: number;
  latencyMs: number;
  error?: string;
  retryAfter?: string;
}

/**
 * Posts a body to a URL: a 2xx within `timeoutMs` is success; redirects are not followed (a 3xx
 * fails); the address is checked as the connection is made (`safeLookup`). Never throws.
 */
export const postEvent = async (
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  rules: TargetRules,
): Promise<PostOutcome> => {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  const refused = await addressProblem(url, rules).catch((e: Error) => e.message);
  if (refused) return { ok: false, latencyMs: took(), error: `refused: ${refused}` };
  return new Promise<PostOutcome>((resolve) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: safeLookup(rules),
        signal: AbortSignal.timeout(timeoutMs),
      },
      (res) => {
        const statusCode = res.statusCode ?? 0;
        // the answer's body is not kept: read and dropped
        res.resume();
        res.on('end', () => {
          const ok = statusCode >= 200 && statusCode < 300;
          const retryAfter = res.headers['retry-after'];
          resolve({
            ok,
            statusCode,
            latencyMs: took(),
            ...(ok ? {} : { error: `answered ${statusCode}` }),
            ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
          });
        });
        res.on('error', (error) =>
          resolve({ ok: false, statusCode, latencyMs: took(), error: error.message }),
        );
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve({
        ok: false,
        latencyMs: took(),
        error:
          error.name === 'TimeoutError' || error.name === 'AbortError'
            ? `no answer within ${timeoutMs} ms`
            : error.message,
      }),
    );
    req.end(body);
  });
};

/**
 * Delivers what is due to every enabled webhook of a base, each apart; answers when the earliest
 * retry it scheduled is due (epoch ms), if any.
 */
export const deliverBase = async (
  baseId: string,
  options: DeliveryOptions = {},
): Promise<number | undefined> => {
  const webhooks = (await listWebhooks(baseId)).filter((w) => w.isEnabled);
  const next = await Promise.all(
    webhooks.map((w) =>
      deliverWebhook(baseId, w.id, options).catch((error: unknown) => {
        logger.error('webhook delivery run failed; it runs again with the next change or retry', {
          webhookId: w.id,
          error: error as Error,
        });
        return undefined;
      }),
    ),
  );
  const due = next.filter((n): n is number => n !== undefined);
  return due.length ? Math.min(...due) : undefined;
};

/** The bases with a retry due by now (the sweep's list). */
export const basesWithRetriesDue = async (now = Date.now()): Promise<string[]> => [
  ...new Set((await dueRetries(now)).map((r) => r.baseId)),
];

/** Delivers what is due to one webhook, as the one sender holding it; answers its next retry, if any. */
export const deliverWebhook = async (
  baseId: string,
  webhookId: string,
  options: DeliveryOptions = {},
): Promise<number | undefined> => {
  const now = options.now ?? Date.now;
  const claim = randomUUID();
  let webhook = await claimWebhook(baseId, webhookId, claim, now());
  if (!webhook) return undefined;
  for (;;) {
    const next = await deliverClaimed(webhook, claim, options);
    if (await releaseWebhook(baseId, webhookId, claim)) return next;
    // another sender asked meanwhile: the log is read once more before letting go
    webhook = await readWebhook(baseId, webhookId);
  }
};

/** The log entry with this `seq`, if kept. */
const entryAt = async (baseId: string, seq: number): Promise<ChangeEntry | undefined> =>
  (await changesAfter(baseId, seq - 1, 1)).find((e) => e.seq === seq);

const deliveryRow = (
  webhook: Webhook,
  entry: ChangeEntry,
  attempt: number,
  outcome: PostOutcome,
  status: Delivery['status'],
  at: number,
): Delivery => ({
  id: newTimeOrderedId('delivery', at),
  webhookId: webhook.id,
  eventId: entry.id,
  seq: entry.seq,
  attempt,
  status,
  ...(outcome.statusCode !== undefined ? { statusCode: outcome.statusCode } : {}),
  latencyMs: outcome.latencyMs,
  ...(outcome.error ? { error: outcome.error.slice(0, 500) } : {}),
  attemptedAt: new Date(at).toISOString(),
});

const stateOf = (webhook: Webhook): DeliveryState => ({
  cursor: webhook.cursor,
  ...(webhook.retry ? { retry: webhook.retry } : {}),
  failures: webhook.failures,
  ...(webhook.failingSince !== undefined ? { failingSince: webhook.failingSince } : {}),
  isEnabled: webhook.isEnabled,
});

/** Posts one entry to the webhook: its outcome. */
const post = (webhook: Webhook, entry: ChangeEntry, options: DeliveryOptions, at: number) => {
  const body = eventBody(webhook, entry);
  return postEvent(
    webhook.url,
    body,
    signedHeaders(webhook, entry.id, body, at),
    options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
    options.rules ?? stageRules(),
  );
};

/** The delivery run of a claimed webhook. */
const deliverClaimed = async (
  webhook: Webhook,
  claim: string,
  options: DeliveryOptions,
): Promise<number | undefined> => {
  if (!webhook.isEnabled) return undefined;
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  let state = stateOf(webhook);
  // where it got to and the attempts made, in one write
  const save = async (next: DeliveryState, rows: Delivery[]) => {
    const saved = await saveDeliveryState(webhook, claim, next, now(), deliveryPuts(rows));
    state = next;
    return saved;
  };
  // deliveries asked for again first: the same event, once, outside the order
  for (const ask of [...webhook.redeliver]) {
    const entry = await entryAt(webhook.baseId, ask.seq);
    const at = now();
    const rows = [];
    if (entry) {
      const outcome = await post(webhook, entry, options, at);
      rows.push(deliveryRow(webhook, entry, 1, outcome, outcome.ok ? 'succeeded' : 'failed', at));
    }
    if (!(await save({ ...state, redelivered: [ask.deliveryId] }, rows))) return undefined;
  }
  for (;;) {
    if (state.retry && state.retry.nextAttemptAt > now()) return state.retry.nextAttemptAt;
    const entries = await changesAfter(webhook.baseId, state.cursor, 50);
    if (!entries.length) return undefined;
    let skipped = false;
    for (const entry of entries) {
      if (!matches(webhook, entry)) {
        state = { ...state, cursor: entry.seq };
        skipped = true;
        continue;
      }
      if (options.deadline !== undefined && now() >= options.deadline) {
        if (skipped && !(await save(state, []))) return undefined;
        return now();
      }
      const again = state.retry?.seq === entry.seq ? state.retry : undefined;
      const attempt = again?.attempt ?? 1;
      const at = now();
      const firstAttemptAt = again?.firstAttemptAt ?? at;
      const outcome = await post(webhook, entry, options, at);
      const after = now();
      if (outcome.ok) {
        const { retry: _, failingSince: __, ...rest } = state;
        const saved = await save({ ...rest, cursor: entry.seq, failures: 0 }, [
          deliveryRow(webhook, entry, attempt, outcome, 'succeeded', at),
        ]);
        if (!saved) return undefined;
        skipped = false;
        continue;
      }
      if (!givenUp(firstAttemptAt, after)) {
        const nextAttemptAt = after + retryDelayMs(attempt, outcome.retryAfter, after, random());
        await save(
          { ...state, retry: { seq: entry.seq, attempt: attempt + 1, firstAttemptAt, nextAttemptAt } },
          [deliveryRow(webhook, entry, attempt, outcome, 'pending', at)],
        );
        return nextAttemptAt;
      }
      // given up on: the delivery failed; the webhook goes on with the next event, or is disabled
      const failures = state.failures + 1;
      const failingSince = state.failingSince ?? firstAttemptAt;
      const disable = toDisable(failures, failingSince, after);
      const { retry: _, ...rest } = state;
      const next: DeliveryState = {
        ...rest,
        cursor: entry.seq,
        failures,
        failingSince,
        isEnabled: !disable,
        ...(disable
          ? {
              disabledReason: `Disabled after ${failures} failed deliveries in a row (the last: ${outcome.error ?? 'no answer'})`,
            }
          : {}),
      };
      if (!(await save(next, [deliveryRow(webhook, entry, attempt, outcome, 'failed', at)])))
        return undefined;
      if (disable) {
        await notifyOwners(webhook, next.disabledReason ?? '', after);
        return undefined;
      }
      skipped = false;
    }
    if (skipped && !(await save(state, []))) return undefined;
  }
};

/** Tells the owners of the webhook's base that it was disabled (the existing notifications). */
const notifyOwners = async (webhook: Webhook, reason: string, at: number): Promise<void> => {
  const base = await readBase(webhook.baseId);
  if (!base) return;
  const owners = (await readMembers(base.spaceId)).filter((m) => m.role === 'owner');
  const now = new Date(at);
  for (const owner of owners)
    await transact(
      notificationOps(
        {
          userId: owner.userId,
          notifyType: 'system',
          message: `A webhook of base "${base.name}" (${webhook.url}) was disabled: ${reason}. Enable it again with PATCH /api/base/${webhook.baseId}/webhook/${webhook.id} {"isEnabled": true}.`,
          url: `/base/${webhook.baseId}/webhook/${webhook.id}`,
        },
        now,
      ),
      () => new ConflictError('a notification failed its condition'),
    );
};
