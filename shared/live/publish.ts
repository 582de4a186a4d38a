/**
 * Where the change capture hands what it wrote to live subscriptions: the publisher the local
 * server sets (its `LiveHub`), else, in the cloud (`LIVE_CALLBACK_URL`), the fan-out through API
 * Gateway's management API (`cloud.ts`).
 */
import { config } from '#shared/config.ts';
import { logger } from '#shared/core/logger.ts';
import type { ChangeEntry } from '#shared/entities/change-log.ts';

type Publisher = (baseId: string, entries: readonly ChangeEntry[]) => Promise<void>;

let publisher: Publisher | undefined;

/** Makes this process send what the capture writes to its live subscribers (local server, tests). */
export const publishLiveTo = (next: Publisher | undefined): void => {
  publisher = next;
};

/** Hands a base's new entries to the live subscribers, if any; never fails the capture. */
export const publishLive = async (baseId: string, entries: readonly ChangeEntry[]): Promise<void> => {
  if (!entries.length) return;
  const publish =
    publisher ?? (config.liveCallbackUrl ? await cloudPublisher(config.liveCallbackUrl) : undefined);
  if (!publish) return;
  await publish(baseId, entries).catch((error: unknown) =>
    logger.error('live fan-out failed; subscribers catch up from the log with sinceSeq', {
      baseId,
      error: error as Error,
    }),
  );
};

let cloud: Promise<Publisher> | undefined;
/** The cloud's fan-out, loaded once (only the stream processor's bundle needs it). */
const cloudPublisher = (endpoint: string): Promise<Publisher> => {
  cloud ??= import('./cloud.ts').then(({ fanOut, managementSender }) => {
    const sender = managementSender(endpoint);
    return (baseId, entries) => fanOut(baseId, entries, sender);
  });
  return cloud;
};
