/**
 * Where the change capture hands what it wrote to live subscriptions: a publisher the local
 * server sets (its `LiveHub`). In the cloud none is set yet: the API Gateway WebSocket API and its
 * fan-out are not built (README, "Live subscriptions").
 */
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
  if (!publisher || !entries.length) return;
  await publisher(baseId, entries).catch((error: unknown) =>
    logger.error('live fan-out failed; subscribers catch up from the log with sinceSeq', {
      baseId,
      error: error as Error,
    }),
  );
};
