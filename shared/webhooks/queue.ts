/**
 * Where a base's webhooks are told to deliver: Amazon SQS in the cloud (`WEBHOOK_QUEUE_URL`: one
 * message `{baseId}` per wake-up, delayed for a retry up to SQS's 15 minutes; the webhook sender
 * consumes it), or this process (local server, tests, bench), where the same delivery runs after
 * the sender returns, one run per base at a time (a wake-up during a run runs it again after), and
 * a retry wakes the base at its time.
 */
import { config } from '#shared/config.ts';
import { logger, withLogContext } from '#shared/core/logger.ts';
import { outsideRequestScope } from '#shared/db/request-scope.ts';

export interface WebhookQueue {
  /** Wakes a base's webhooks now, or after `delayMs`. */
  wake(baseId: string, delayMs?: number): Promise<void>;
}

/** What runs a base's deliveries: `deliver.ts` `deliverBase` (answers its next retry). */
export type WebhookRunner = (baseId: string) => Promise<number | undefined>;

class InProcessWebhookQueue implements WebhookQueue {
  runner: WebhookRunner | undefined;
  private readonly running = new Map<string, Promise<void>>();
  private readonly rerun = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();

  async wake(baseId: string, delayMs = 0): Promise<void> {
    if (!this.runner) return;
    if (delayMs > 0) {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        void this.wake(baseId);
      }, delayMs);
      timer.unref();
      this.timers.add(timer);
      return;
    }
    if (this.running.has(baseId)) {
      this.rerun.add(baseId);
      return;
    }
    const runner = this.runner;
    const run = outsideRequestScope(() =>
      withLogContext({ job: `webhooks/${baseId}` }, async () => {
        await new Promise((resolve) => setImmediate(resolve));
        do {
          this.rerun.delete(baseId);
          try {
            const next = await runner(baseId);
            if (next !== undefined) await this.wake(baseId, Math.max(1, next - Date.now()));
          } catch (error) {
            logger.error('webhook delivery failed; the base runs again with its next change', {
              baseId,
              error: error as Error,
            });
          }
        } while (this.rerun.has(baseId));
      }),
    ).finally(() => this.running.delete(baseId));
    this.running.set(baseId, run);
  }

  /** Waits until no base is being delivered (retries waiting on a timer are not waited for). */
  async settle(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running.values()]);
  }

  /** Forgets the retries waiting on a timer. */
  clearTimers(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}

const inProcess = new InProcessWebhookQueue();
let chosen: Promise<WebhookQueue> | undefined;

/** The queue of this environment: SQS when `WEBHOOK_QUEUE_URL` is set, else this process. */
export const webhookQueue = (): Promise<WebhookQueue> => {
  chosen ??= config.webhookQueueUrl
    ? import('./sqs-webhook-queue.ts').then((m) => m.sqsWebhookQueue(config.webhookQueueUrl as string))
    : Promise.resolve(inProcess);
  return chosen;
};

/** Makes this process deliver webhooks itself (local server, tests, bench). */
export const deliverWebhooksInProcess = (runner: WebhookRunner | undefined): void => {
  inProcess.runner = runner;
};

/** Waits for the deliveries running in this process (tests). */
export const settleWebhooks = (): Promise<void> => inProcess.settle();

/** Drops the retries this process waits to make (tests, shutdown). */
export const forgetWebhookRetries = (): void => inProcess.clearTimers();
