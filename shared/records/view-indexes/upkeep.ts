/**
 * View indexes: for each grid view whose saved query (filter, sort, group) the index keys can
 * order exactly (`query/index-keys.ts` `indexBlocker`), an ordered list of the records passing its
 * filter, kept by DynamoDB in the view's order (`entities/view-indexes.ts`), so a page of the
 * view reads only the entries before it and its own records.
 *
 * Kept exact by the writes: every record write of create, update and delete (`entrySteps`) puts
 * and deletes the entries its records move, in the same commit as the records (joined to each
 * record's own operation), guarded by the record's version so two writes of one record never
 * leave two entries; its record operations name the indexes they keep (`maintains`), so the
 * data-version increment in the same transaction moves each kept index's counter as much as the
 * table's (`db/data-versions.ts`). Any other write of the table's records (a rename rewriting
 * cells, a propagated lookup, a placement that rekeys neighbours, an undo) moves the table's
 * counters alone: the index then no longer matches its `baseline` and is not used until it is
 * built again. That is how an index is never used after a write it did not see.
 *
 * An index is identified by its view and a hash of its query and of the definitions of the
 * fields it reads (`indexId`): a changed filter, sort, group or field makes a new index, built
 * anew (the old one is emptied by the build).
 */
import { createHash } from 'node:crypto';
import type { Step } from '#shared/db/commit.ts';
import { ENTRY_COUNT_PREFIX, MAINTAINED_PREFIX } from '#shared/db/data-versions.ts';
import type { RecordItem, RecordPart } from '#shared/entities/records.ts';
import { deleteEntryOp, type IndexEntry, putEntryOp } from '#shared/entities/view-index-entries.ts';
import { GROUP_SHARDS, type GroupCount, groupCountOp } from '#shared/entities/view-index-groups.ts';
import type { Field } from '#shared/fields/field-types.ts';
import { queryFieldIds } from '#shared/query/engine.ts';
import { compileFilter } from '#shared/query/filter.ts';
import {
  compileGroupKey,
  compileIndexKey,
  INDEX_KEY_FORMAT,
  indexBlocker,
  isCut,
  sortKeyOf,
} from '#shared/query/index-keys.ts';
import type { Query, QueryContext } from '#shared/query/query-types.ts';
import type { TableSchema, View } from '#shared/schema/schema.ts';
import { viewQueryOf } from '#shared/schema/views.ts';
import { rowAttributes, toRow } from '../rows.ts';

export interface ViewIndex {
  tableId: string;
  viewId: string;
  /** `<view>:<hash>`: the view and what its order depends on. */
  indexId: string;
  /** The maintained-index counter writes that keep this index move. */
  mark: string;
  /** The counter of its entries (moved by the writes that keep it). */
  counter: string;
  /** The view's query (all records, no paging). */
  query: Query;
  /** The fields the query reads. */
  fields: Field[];
  /** The record attributes the query reads. */
  attributes: string[];
  /** The entry of a record, or undefined when the record does not pass the filter. */
  entryOf: (record: RecordPart) => IndexEntry | undefined;
  /**
   * A grouped view's: the group tuple of a record passing the filter (its key and grouped cells),
   * undefined for any other record.
   */
  groupOf?: (record: RecordPart) => Omit<GroupCount, 'count'> | undefined;
}

/** The view's own query as a listing of it resolves it, with the view's group as `groupBy`. */
const ownQueryOf = (schema: TableSchema, view: View): Query => {
  const { filter, sort, group } = viewQueryOf(schema.fields, view);
  return {
    filter,
    sort,
    groupBy: group,
    collapsedGroupIds: [],
    search: null,
    skip: 0,
    take: Number.MAX_SAFE_INTEGER,
  };
};

/** The engine context of index keys: no caller, time or link titles (a view that needs them has no index). */
const contextOf = (schema: TableSchema): QueryContext => ({
  fields: new Map(schema.fields.map((f) => [f.id, f])),
  userId: '',
  now: new Date(0),
  linkTitle: () => undefined,
});

/** What decides a query's order, for the index id. */
const indexIdOf = (view: View, query: Query, fields: readonly Field[]): string =>
  `${view.id}:${createHash('sha256')
    .update(
      JSON.stringify({
        format: INDEX_KEY_FORMAT,
        filter: query.filter,
        sort: query.sort,
        groupBy: query.groupBy,
        fields,
      }),
    )
    .digest('base64url')
    .slice(0, 22)}`;

const byView = new WeakMap<TableSchema, Map<string, ViewIndex | null>>();

/** The index of a view, or undefined when its query needs none (no filter, sort or group) or cannot have one. */
export const viewIndexOf = (schema: TableSchema, view: View): ViewIndex | undefined => {
  const known = byView.get(schema) ?? new Map<string, ViewIndex | null>();
  byView.set(schema, known);
  const seen = known.get(view.id);
  if (seen !== undefined) return seen ?? undefined;
  const index = buildIndex(schema, view);
  known.set(view.id, index ?? null);
  return index;
};

const buildIndex = (schema: TableSchema, view: View): ViewIndex | undefined => {
  // grids page through their records in the view's order; other view types are not indexed
  if (view.type !== 'grid') return undefined;
  let query: Query;
  try {
    query = ownQueryOf(schema, view);
  } catch {
    return undefined; // a saved query a listing would refuse too
  }
  if (!query.filter && query.sort.length === 0 && query.groupBy.length === 0) return undefined;
  const ctx = contextOf(schema);
  if (indexBlocker(query, ctx) !== undefined) return undefined;
  const used = queryFieldIds(query);
  const fields = schema.fields.filter((f) => used.has(f.id));
  const keyOf = compileIndexKey(query, ctx);
  const groupKeyOf = compileGroupKey(query, ctx);
  const grouped = query.groupBy.map((spec) => spec.fieldId);
  const passes = query.filter ? compileFilter(query.filter, ctx) : () => true;
  const indexId = indexIdOf(view, query, fields);
  return {
    tableId: schema.table.id,
    viewId: view.id,
    indexId,
    mark: `${MAINTAINED_PREFIX}${indexId}`,
    counter: `${ENTRY_COUNT_PREFIX}${indexId}`,
    query,
    fields,
    attributes: rowAttributes(schema.fields, used),
    entryOf: (record) => {
      const r = toRow(record, fields, view.id);
      if (!passes(r)) return undefined;
      const key = keyOf(r);
      const sk = sortKeyOf(key, r.id);
      return { sk, id: r.id, ...(isCut(sk) ? { k: key } : {}) };
    },
    ...(grouped.length
      ? {
          groupOf: (record: RecordPart) => {
            const r = toRow(record, fields, view.id);
            if (!passes(r)) return undefined;
            const cells: Record<string, unknown> = {};
            for (const id of grouped) if (r.cells[id] !== undefined) cells[id] = r.cells[id];
            return { key: groupKeyOf(r), cells };
          },
        }
      : {}),
  };
};

/** The indexes of a table's views (those whose query can have one). */
export const viewIndexesOf = (schema: TableSchema): ViewIndex[] =>
  schema.views.flatMap((view) => viewIndexOf(schema, view) ?? []);

/** Whether a table's record writes keep indexes (and so must be guarded by the records' versions). */
export const hasViewIndexes = (schema: TableSchema): boolean => viewIndexesOf(schema).length > 0;

/** What one record becomes: `before` undefined for a new record, `after` undefined for a deleted one. */
export interface RecordMove {
  before?: RecordItem;
  after?: RecordItem;
}

/**
 * The entry steps of one record's write for every index of its table: the old entry deleted and
 * the new one put where they differ (each undone by the reverse); the index marks its record
 * operation carries, and how many entries it adds to each index. Pure.
 */
export const entryStepsOf = (
  schema: TableSchema,
  move: RecordMove,
): { steps: Step[]; marks: string[]; counts: Record<string, number> } => {
  const indexes = viewIndexesOf(schema);
  const steps: Step[] = [];
  const counts: Record<string, number> = {};
  for (const index of indexes) {
    const from = move.before ? index.entryOf(move.before) : undefined;
    const to = move.after ? index.entryOf(move.after) : undefined;
    const delta = (to ? 1 : 0) - (from ? 1 : 0);
    if (delta !== 0) counts[index.counter] = delta;
    if (from && to && from.sk === to.sk) {
      // the same place (a cut key): the entry is put again with its new whole key, if it has one
      if (from.k !== to.k)
        steps.push({ op: putEntryOp(index.indexId, to), undo: putEntryOp(index.indexId, from) });
      continue;
    }
    if (from)
      steps.push({ op: deleteEntryOp(index.indexId, from.sk), undo: putEntryOp(index.indexId, from) });
    if (to) steps.push({ op: putEntryOp(index.indexId, to), undo: deleteEntryOp(index.indexId, to.sk) });
  }
  return { steps, marks: indexes.map((index) => index.mark), counts };
};

/**
 * A record's own step with its index entry steps joined after it (one transaction, undone
 * together), the step's operation naming the indexes it keeps. The steps already joined to the
 * record's step (`withJoined`) stay joined. Pure.
 */
export const withEntrySteps = (schema: TableSchema, move: RecordMove, own: readonly Step[]): Step[] => {
  const [head, ...rest] = own;
  if (!head) return [];
  const { steps, marks, counts } = entryStepsOf(schema, move);
  if (marks.length === 0) return [...own];
  const op = { ...head.op, maintains: marks, ...(Object.keys(counts).length ? { counts } : {}) };
  return [{ ...head, op, joined: (head.joined ?? 0) + steps.length }, ...steps, ...rest];
};

/**
 * The shards a write's own group-count steps use, and those of the records it changes by
 * propagation (`propagate.ts`): apart, so the two never name the same counter item in one
 * transaction (a record of the table reached through a link to itself).
 */
const SHARDS = {
  own: [0, GROUP_SHARDS / 2],
  propagated: [GROUP_SHARDS / 2, GROUP_SHARDS],
} as const;

/**
 * The group counts a write moves, for every grouped index of the table: per group tuple whose
 * entries the write changes, the sum of what its records bring (+1) and take away (-1), one step
 * each (several records of one tuple share one step: a transaction may name an item once),
 * undone by the opposite; a step of sum 0 (a record moved within its tuple) still marks the
 * tuple written (`groupCountOp`). Pure.
 */
export const groupCountSteps = (
  schema: TableSchema,
  moves: readonly RecordMove[],
  by: keyof typeof SHARDS = 'own',
): Step[] => {
  const [low, high] = SHARDS[by];
  const steps: Step[] = [];
  for (const index of viewIndexesOf(schema)) {
    const { groupOf } = index;
    if (!groupOf) continue;
    const deltas = new Map<string, { group: Omit<GroupCount, 'count'>; delta: number }>();
    const add = (group: Omit<GroupCount, 'count'> | undefined, delta: number) => {
      if (!group) return;
      const seen = deltas.get(group.key);
      if (seen) seen.delta += delta;
      else deltas.set(group.key, { group, delta });
    };
    for (const move of moves) {
      // a record whose entry stays put changes no group (the group key begins the entry's key)
      const from = move.before && index.entryOf(move.before);
      const to = move.after && index.entryOf(move.after);
      if (from?.sk === to?.sk && from?.k === to?.k) continue;
      add(move.before && groupOf(move.before), -1);
      add(move.after && groupOf(move.after), 1);
    }
    // every tuple whose entries change, its count moved or not (a move within it, a swap): the
    // step adds to the tuple's write counter too, which a build's settle watches
    for (const { group, delta } of deltas.values()) {
      const shard = low + Math.floor(Math.random() * (high - low));
      steps.push({
        op: groupCountOp(index.indexId, group, delta, shard),
        undo: groupCountOp(index.indexId, group, -delta, shard),
      });
    }
  }
  return steps;
};
