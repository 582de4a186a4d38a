import type { HttpError } from '#shared/core/errors.ts';
import { deleteItem, getItems, putItem, transact, writeItems } from '#shared/db/client.ts';
import { NOT_EXISTS, or } from '#shared/db/conditions.ts';
import { type Key, keys } from '#shared/db/keys.ts';

/**
 * The record of a request sent with an `Idempotency-Key` (`IDEM#<usr>` or, on a table route,
 * `IDEM#<tbl>`, sort key by route and key; type `idempotency`): the body's hash, its state
 * (`running`, `applied` once a journaled write completed but its answer was lost, `done`) and,
 * once done, the first part of the gzipped answer and how many parts it has. The further parts are
 * items of their own (type `idempotencyPart`), each with an `answer` part. All expire
 * (`expiresAt`, DynamoDB's TTL).
 */

/** Which request a record is of: the user, the route, the key and, on a table route, the table. */
export interface IdempotencyRef {
  userId: string;
  route: string;
  key: string;
  tableId?: string;
}

/** A record as read. */
export interface IdempotencyRecord {
  /** The hash of the body the key was first used with. */
  hash: unknown;
  state: unknown;
  /** How many parts the answer has (1 when it was never split). */
  parts: number;
  /** The first part of the gzipped answer, once done. */
  answer: unknown;
}

/** The key of a record, for the request scope (the repair worker frees or marks it). */
export const idempotencyRecordKey = (ref: IdempotencyRef): Key =>
  keys.idempotency(ref.userId, ref.route, ref.key, ref.tableId);

const partKey = (ref: IdempotencyRef, part: number): Key =>
  keys.idempotencyPart(ref.userId, ref.route, ref.key, part, ref.tableId);

/**
 * Claims a key for a request now running (`now` in epoch seconds): only when no record is there
 * or the one there expired; a claim holds for `holdSeconds`. A refused claim becomes `onTaken()`.
 */
export const claimIdempotencyKey = async (
  ref: IdempotencyRef,
  hash: string,
  now: number,
  holdSeconds: number,
  onTaken: () => HttpError,
): Promise<void> => {
  await transact(
    [
      {
        put: {
          ...idempotencyRecordKey(ref),
          type: 'idempotency',
          hash,
          state: 'running',
          expiresAt: now + holdSeconds,
        },
        condition: or(NOT_EXISTS, 'expiresAt < :now'),
        values: { ':now': now },
      },
    ],
    onTaken,
  );
};

/** The record of a key (one strongly consistent batch read), if there is one. */
export const idempotencyRecord = async (ref: IdempotencyRef): Promise<IdempotencyRecord | undefined> => {
  const itemKey = idempotencyRecordKey(ref);
  const item = (await getItems([itemKey])).get(itemKey);
  return item
    ? { hash: item.hash, state: item.state, parts: Number(item.parts ?? 1), answer: item.answer }
    : undefined;
};

/** The further parts of a remembered answer, 1..count-1 in order (one batch read; none: no read). */
export const answerParts = async (ref: IdempotencyRef, count: number): Promise<unknown[]> => {
  const rest = Array.from({ length: count - 1 }, (_, i) => partKey(ref, i + 1));
  const stored = rest.length ? await getItems(rest) : undefined;
  return rest.map((k) => stored?.get(k)?.answer);
};

/** Frees a key (a failed request may be retried). */
export const releaseIdempotencyKey = (ref: IdempotencyRef): Promise<void> =>
  deleteItem(idempotencyRecordKey(ref));

/**
 * Remembers a request's answer, in parts: the further parts first, then the record marked done
 * with the first part, so a record marked done always has all its parts. All expire at
 * `expiresAt` (epoch seconds).
 */
export const storeAnswer = async (
  ref: IdempotencyRef,
  hash: string,
  parts: readonly Buffer[],
  expiresAt: number,
): Promise<void> => {
  await writeItems(
    parts.slice(1).map((part, i) => ({
      put: { ...partKey(ref, i + 1), type: 'idempotencyPart', answer: part, expiresAt },
    })),
  );
  await putItem({
    ...idempotencyRecordKey(ref),
    type: 'idempotency',
    hash,
    state: 'done',
    answer: parts[0],
    parts: parts.length,
    expiresAt,
  });
};
