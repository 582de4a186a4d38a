import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import {
  ConflictError,
  InternalServerError,
  ValidationError,
  WriteInterruptedError,
} from '#shared/core/errors.ts';
import { requestScope } from '#shared/db/request-scope.ts';
import {
  answerParts,
  claimIdempotencyKey,
  type IdempotencyRef,
  idempotencyRecord,
  idempotencyRecordKey,
  releaseIdempotencyKey,
  storeAnswer,
} from '#shared/entities/idempotency-records.ts';

// Ours, not Powertools Idempotency: a retry must see the answer stored in the same single table,
// tied to the write's journal (a 504 write_interrupted retried after repair), and answers over
// 400 KB are stored in parts; Powertools keeps one item per key in a table of its own.

/** Remembered answers live a day (endpoints.md, "Safe retries"). */
export const IDEMPOTENCY_SECONDS = 86_400;
const MAX_KEY_LENGTH = 64;
/** Bytes of a remembered answer per item; a larger answer is stored in parts. */
const MAX_STORED_BYTES = 350_000;
/**
 * How long a claim of a request still running holds its key: longer than any Lambda run, so a
 * claim left by a crashed run frees the key for a retry instead of refusing it for a day.
 */
export const RUNNING_SECONDS = 15 * 60;

/** What a replay answers: the first call's status and body. */
export interface Remembered {
  status: number;
  body: unknown;
}

/** The hash a request body is remembered by (its exact JSON text). */
export const bodyHash = (body: unknown): string =>
  createHash('sha256')
    .update(JSON.stringify(body ?? null))
    .digest('base64url');

/**
 * Runs `work` once per `Idempotency-Key` of a user on a route: the key is claimed first (a
 * concurrent duplicate is a 409), a repeat with the same body within 24 hours answers the first
 * answer without running again, the same key with another body is a 409. A failed first call
 * releases the key, so the caller may retry it; a claim left by a crashed call frees it after
 * `RUNNING_SECONDS`. With `tableId` (a table route) the answer lives in the table's partition,
 * so the table's permanent delete takes it along.
 */
export const withIdempotency = async (
  userId: string,
  route: string,
  key: string,
  body: unknown,
  work: () => Promise<Remembered>,
  tableId?: string,
): Promise<Remembered> => {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || /[^\x21-\x7e]/.test(key))
    throw new ValidationError(`Idempotency-Key must be 1..${MAX_KEY_LENGTH} printable characters`);
  const ref: IdempotencyRef = { userId, route, key, ...(tableId !== undefined ? { tableId } : {}) };
  const hash = bodyHash(body);
  const now = Math.floor(Date.now() / 1000);
  try {
    await claimIdempotencyKey(ref, hash, now, RUNNING_SECONDS, () => new ConflictError('taken'));
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    const seen = await idempotencyRecord(ref);
    if (!seen) throw new ConflictError('The Idempotency-Key is in use by another request; retry');
    if (seen.hash !== hash) throw new ConflictError('The Idempotency-Key was used with a different body');
    if (seen.state === 'applied')
      throw new ConflictError(
        'The request with this Idempotency-Key ran out of time after its write was made; its answer was lost. Read the resource to see the result',
      );
    if (seen.state !== 'done')
      throw new ConflictError('A request with this Idempotency-Key is still running; retry');
    const parts = [seen.answer, ...(await answerParts(ref, seen.parts))];
    if (!parts.every((p): p is Uint8Array => p instanceof Uint8Array)) throw new InternalServerError();
    return JSON.parse(gunzipSync(Buffer.concat(parts)).toString('utf8')) as Remembered;
  }
  let answer: Remembered;
  const scope = requestScope();
  if (scope) scope.idempotencyKey = idempotencyRecordKey(ref);
  try {
    answer = await work();
  } catch (error) {
    // An interrupted large write keeps the claim: the repair worker frees it once the write is
    // undone, or marks it applied, so a retry never runs beside a write still being repaired.
    if (!(error instanceof WriteInterruptedError)) await releaseIdempotencyKey(ref).catch(() => undefined);
    throw error;
  }
  // Never forget a done request (a repeat must not write again): a large answer goes in parts,
  // written before the key's item marks the request done.
  const packed = gzipSync(JSON.stringify(answer));
  const parts: Buffer[] = [];
  for (let at = 0; at < packed.length; at += MAX_STORED_BYTES)
    parts.push(packed.subarray(at, at + MAX_STORED_BYTES));
  const expiresAt = now + IDEMPOTENCY_SECONDS;
  await storeAnswer(ref, hash, parts, expiresAt);
  return answer;
};
