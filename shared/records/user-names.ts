/**
 * A renamed user's name carried into the records (`PATCH /user/name`, teable-routes.md: "user
 * cells follow"). User cells, and a record's creator and last editor (`cb`, `mb`), store the
 * user's name as it was written; after a rename, a background job (the purge queue's
 * `userCells` kind) walks every table of the user's spaces and rewrites the stale names, and
 * what reads them (lookups here and in other tables, formulas over the user, createdBy and
 * lastModifiedBy fields) is recomputed in the same writes. The records' edit times stay: a rename
 * is not an edit of the record. Idempotent: a second run finds nothing stale.
 */
import { ConflictError } from '#shared/core/errors.ts';
import { getItem, queryAll } from '#shared/db/client.ts';
import { commitSteps } from '#shared/db/commit.ts';
import { keys } from '#shared/db/keys.ts';
import { baseRefOf } from '#shared/entities/bases.ts';
import { userSpaceOf } from '#shared/entities/members.ts';
import { queryRecords, type RecordItem } from '#shared/entities/records.ts';
import { tableRefOf } from '#shared/entities/tables.ts';
import type { Field, UserRef } from '#shared/fields/field-types.ts';
import { loadSchema, type TableSchema } from '#shared/schema/schema.ts';
import { propagate, type Seed } from './propagate.ts';

/** Answers false once the run must stop (the worker's time is nearly spent). */
export type Budget = () => boolean;

/** Records rewritten per write (one journaled write at most). */
const CHUNK = 250;
/** Tries of a chunk that met a concurrent edit. */
const TRIES = 3;

const isUserRef = (v: unknown): v is UserRef =>
  typeof v === 'object' && v !== null && typeof (v as UserRef).id === 'string' && 'title' in v;

/** A user cell (one ref or a list) with the user's refs renamed; undefined when none was stale. Pure. */
export const renamedRefs = (value: unknown, userId: string, name: string): unknown => {
  const one = (v: unknown) =>
    isUserRef(v) && v.id === userId && v.title !== name ? { ...v, title: name } : v;
  if (Array.isArray(value)) {
    const next = value.map(one);
    return next.some((v, i) => v !== value[i]) ? next : undefined;
  }
  const next = one(value);
  return next !== value ? next : undefined;
};

/**
 * The record with the user's name renamed in its user cells and creator / editor, and the cells
 * that changed (field ids; `cb` / `mb` with the createdBy / lastModifiedBy fields that show them);
 * undefined when nothing was stale. Pure.
 */
export const renamedRecord = (
  item: RecordItem,
  fields: readonly Field[],
  userId: string,
  name: string,
): { item: RecordItem; changed: Set<string> } | undefined => {
  const copy = structuredClone(item);
  const changed = new Set<string>();
  for (const f of fields) {
    if (f.type !== 'user' || f.isLookup) continue;
    const next = renamedRefs(item[f.id], userId, name);
    if (next === undefined) continue;
    copy[f.id] = next;
    changed.add(f.id);
  }
  for (const [attr, type] of [
    ['cb', 'createdBy'],
    ['mb', 'lastModifiedBy'],
  ] as const) {
    const next = renamedRefs(item[attr], userId, name);
    if (next === undefined) continue;
    copy[attr] = next as UserRef;
    changed.add(attr);
    for (const f of fields) if (f.type === type) changed.add(f.id);
  }
  return changed.size ? { item: copy, changed } : undefined;
};

/** Rewrites one table's stale names (and what reads them). True when the table is done. */
const renameInTable = async (tableId: string, userId: string, name: string, budget: Budget) => {
  for (let attempt = 1; ; attempt++) {
    try {
      const schema = await loadSchema(tableId).catch(() => undefined);
      if (!schema || schema.table.purgeTime) return true;
      const items = await queryRecords(tableId);
      const seeds: Seed[] = items.flatMap((original) => {
        const renamed = renamedRecord(original, schema.fields, userId, name);
        return renamed ? [{ tableId, original, own: false, ...renamed }] : [];
      });
      for (let i = 0; i < seeds.length; i += CHUNK) {
        if (!budget()) return false;
        await writeChunk(schema, seeds.slice(i, i + CHUNK));
      }
      return true;
    } catch (error) {
      // a record edited meanwhile: read the table again (the edit kept the stale name)
      if (!(error instanceof ConflictError) || attempt >= TRIES) throw error;
    }
  }
};

const writeChunk = async (schema: TableSchema, seeds: Seed[]) => {
  const { steps } = await propagate(seeds, new Date(), new Map([[schema.table.id, schema]]));
  await commitSteps(schema.table.id, steps, () => new ConflictError('A record changed during the rename'));
};

/**
 * Carries a user's current name into every record of the spaces the user belongs to (each
 * table, live or in the trash). True when done; false when the budget ran out (the job is run
 * again and finds what is still stale).
 */
export const renameUserInRecords = async (userId: string, budget: Budget = () => true): Promise<boolean> => {
  const user = await getItem(keys.user(userId));
  if (!user || typeof user.name !== 'string') return true;
  const name = user.name;
  const spaceIds = (await queryAll(keys.spacesOf(userId))).flatMap((m) => userSpaceOf(m)?.spaceId ?? []);
  for (const spaceId of spaceIds) {
    const bases = (await queryAll(keys.basesOf(spaceId))).map(baseRefOf);
    for (const { baseId } of bases) {
      const tables = (await queryAll(keys.tablesOf(baseId))).map(tableRefOf);
      for (const { tableId } of tables)
        if (!(await renameInTable(tableId, userId, name, budget))) return false;
    }
  }
  return true;
};
