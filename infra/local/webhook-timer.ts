import { basesWithRetriesDue } from '#shared/webhooks/deliver.ts';
import { webhookQueue } from '#shared/webhooks/queue.ts';
import { every } from './every.ts';

/** Locally every minute, as the stack's schedule. */
export const LOCAL_WEBHOOK_SWEEP_MS = 60_000;

/**
 * Plays the webhook sender's scheduled sweep for `npm start`: the bases whose webhook retries are
 * due are woken (retries this process scheduled wake on their own timer; this finds those a
 * previous run left). Now, then every `everyMs`; ticks while the database is down are skipped.
 */
export const startWebhookTimer = (
  everyMs = LOCAL_WEBHOOK_SWEEP_MS,
  paused: () => boolean = () => false,
): (() => void) =>
  every(
    everyMs,
    paused,
    async () => {
      const queue = await webhookQueue();
      for (const baseId of await basesWithRetriesDue()) await queue.wake(baseId);
    },
    'The webhook retry sweep',
  );
