import { allInOrder } from '#shared/core/in-order.ts';
import type { Step } from '#shared/db/commit.ts';
import type { RecordItem } from '#shared/entities/records.ts';
import type { Field, StoredCell } from '#shared/fields/field-types.ts';
import type { TableSchema } from '#shared/schema/schema.ts';
import { type LinkResolution, type LinkWrite, resolveLinks } from './links.ts';
import { cellOf } from './model.ts';
import { type Propagation, propagate } from './propagate.ts';
import { type UniqueChange, uniqueSteps } from './unique.ts';

/**
 * The shared middle of every record write (create, update, duplicate, delete): after the write
 * converted its values, and before it commits its steps and renders its answer.
 *
 * convert values (convertWrite) → **links kept two-sided, unique claims moved** (here, together
 * with the write's own reads) → the write's own steps (items, index entries, placement) → commit.
 *
 * A record change is what one record becomes: `before` is undefined for a new record; `cells` are
 * the written cells (a delete empties every link field of the record); `deleted` for a delete.
 */
export interface RecordChange extends LinkWrite {
  deleted?: boolean;
}

/** The unique claims a change moves: every unique field of a new or deleted record, the written ones of an update. */
const uniqueChanges = (fields: readonly Field[], changes: readonly RecordChange[]): UniqueChange[] =>
  changes.flatMap((c) =>
    fields
      .filter((f) => f.unique && (c.deleted || !c.before || c.cells.has(f.id)))
      .map((field) => ({
        recordId: c.recordId,
        field,
        from: c.before ? cellOf(c.before, field) : undefined,
        to: c.deleted ? undefined : (c.cells.get(field.id) as StoredCell | undefined),
      })),
  );

/**
 * The steps every record write shares, read in one round with the write's own independent reads
 * (`alongside`: autoNumbers, placement, …), whose results come back in `own`. The unique claims
 * wait for the links only when a link field is unique (resolving links fills its cells). A
 * request with several faults fails with the first in this order: links, unique, then `alongside`
 * in the order given.
 */
export const sharedWriteSteps = async <const T extends readonly unknown[]>(
  schema: TableSchema,
  fields: readonly Field[],
  changes: RecordChange[],
  alongside: T,
): Promise<{ links: LinkResolution; unique: Step[]; own: { -readonly [K in keyof T]: Awaited<T[K]> } }> => {
  const tableId = schema.table.id;
  const claims = () => uniqueSteps(tableId, uniqueChanges(fields, changes));
  const afterLinks = fields.some((f) => f.unique && f.type === 'link');
  const [links, uniqueFirst, ...own] = await allInOrder([
    resolveLinks(schema, fields, changes),
    afterLinks ? undefined : claims(),
    ...alongside,
  ] as const);
  return {
    links,
    unique: uniqueFirst ?? (await claims()),
    own: own as unknown as { -readonly [K in keyof T]: Awaited<T[K]> },
  };
};

/** One of the write's own records as the computed cells see it. */
export interface OwnRecord {
  /** As it will be stored (a deleted record: as it was). */
  item: RecordItem;
  /** As read; undefined for a new record. */
  original: RecordItem | undefined;
  deleted?: boolean;
  /** The cells the write changed. */
  changed: ReadonlySet<string>;
}

/**
 * The computed cells a write changes, here and in every table that depends on what it changed
 * (computed.md 6): the write's own records get their formulas (all of them: NOW() and
 * LAST_MODIFIED_TIME() move with every write) and the lookups and rollups of changed links; the
 * other sides of its links and every dependent record get conditional puts (`steps`).
 */
export const followComputed = (
  schema: TableSchema,
  own: readonly OwnRecord[],
  links: LinkResolution,
  now: Date,
): Promise<Propagation> => {
  const formulas = new Set(schema.fields.filter((f) => f.type === 'formula' && !f.isLookup).map((f) => f.id));
  return propagate(
    [
      ...own.map((o) => ({
        tableId: schema.table.id,
        item: o.item,
        original: o.original,
        own: true,
        deleted: o.deleted,
        // a deleted record takes every cell away from those reading it (one-way links included,
        // whose holders no other side of the write reaches)
        changed: o.deleted ? new Set(schema.fields.map((f) => f.id)) : o.changed,
        compute: o.deleted ? undefined : formulas,
      })),
      ...links.touched.map((t) => ({ ...t, own: false })),
    ],
    now,
    new Map([[schema.table.id, schema]]),
  );
};
