/**
 * Where the change capture hands what it wrote to live subscriptions: the publishers the local
 * server adds (its `LiveHub` for `/api/live`, its ShareDB hub for `/socket`), else, in the cloud,
 * the fan-outs through API Gateway's management API: `/api/live`'s (`LIVE_CALLBACK_URL`,
 * `cloud.ts`) and the realtime socket's (`SOCKET_CALLBACK_URL`, `sharedb/socket-cloud.ts`).
 */
import { config } from '#shared/config.ts';
import { logger } from '#shared/core/logger.ts';
import type { ChangeEntry } from '#shared/entities/change-log.ts';

type Publisher = (baseId: string, entries: readonly ChangeEntry[]) => Promise<void>;

const publishers = new Set<Publisher>();

/**
 * Makes this process send what the capture writes to a set of live subscribers (the local server,
 * tests); answers the function that stops it.
 */
export const publishLiveTo = (publisher: Publisher): (() => void) => {
  publishers.add(publisher);
  return () => publishers.delete(publisher);
};

/** Hands a base's new entries to the live subscribers, if any; never fails the capture. */
export const publishLive = async (baseId: string, entries: readonly ChangeEntry[]): Promise<void> => {
  if (!entries.length) return;
  const targets = publishers.size ? [...publishers] : await cloudPublishers();
  await Promise.all(
    targets.map((publish) =>
      publish(baseId, entries).catch((error: unknown) =>
        logger.error('live fan-out failed; subscribers catch up from the log', {
          baseId,
          error: error as Error,
        }),
      ),
    ),
  );
};

let cloud: Promise<Publisher[]> | undefined;
/** The cloud's fan-outs, loaded once (only the stream processor's bundle needs them). */
const cloudPublishers = (): Promise<Publisher[]> => {
  cloud ??= Promise.all([
    config.liveCallbackUrl
      ? import('./cloud.ts').then(({ fanOut, managementSender }): Publisher => {
          const sender = managementSender(config.liveCallbackUrl as string);
          return (baseId, entries) => fanOut(baseId, entries, sender);
        })
      : undefined,
    config.socketCallbackUrl
      ? Promise.all([import('./cloud.ts'), import('./sharedb/socket-cloud.ts')]).then(
          ([{ managementPoster }, { socketFanOut }]): Publisher => {
            const sender = managementPoster(config.socketCallbackUrl as string);
            return (baseId, entries) => socketFanOut(baseId, entries, sender);
          },
        )
      : undefined,
  ]).then((all) => all.filter((p): p is Publisher => p !== undefined));
  return cloud;
};
