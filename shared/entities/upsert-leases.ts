/**
 * An upsert's lease on a key it is about to create a record for (`UPSERT#<tbl>` `<key hash>`):
 * taken in the same transaction as the new record, on the condition that no other upsert holds it
 * (or its lease ran out). Two upserts of one new key at the same moment both find no record; one
 * creates it, the other's transaction fails on the lease, and its retry finds the record and
 * updates it (data-flow.md 8). A lease lasts a minute — far longer than a request, so the retry
 * always sees the record committed — and is removed by TTL after.
 */
import { createHash } from 'node:crypto';
import type { Step } from '#shared/db/commit.ts';
import { NOT_EXISTS, or } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';

/** How long a lease holds a key. */
export const LEASE_SECONDS = 60;

/** The hash a key is leased under: the fields merged on and the key's cells, as JSON. Pure. */
export const leaseHashOf = (fieldIds: readonly string[], keyJson: string): string =>
  createHash('sha256')
    .update(`${fieldIds.join(',')}\n${keyJson}`)
    .digest('base64url');

/** The step that takes the lease of a key for a new record (undone with the write). */
export const takeLeaseStep = (tableId: string, keyHash: string, recordId: string, now: Date): Step => {
  const key = keys.upsertLease(tableId, keyHash);
  const seconds = Math.floor(now.getTime() / 1000);
  return {
    op: {
      put: { ...key, type: 'upsertLease', recordId, expiresAt: seconds + LEASE_SECONDS },
      condition: or(NOT_EXISTS, 'expiresAt < :now'),
      values: { ':now': seconds },
    },
    undo: { delete: key },
  };
};
