/** Plain-data fixtures for the query engine's unit tests (sort, groups, search, engine). */
import { defineField } from '#shared/fields/define.ts';
import type { Field, StoredCell, UserRef } from '#shared/fields/field-types.ts';
import type { Query, QueryContext, Row } from '#shared/query/query-types.ts';

/** A field of the type as `defineField` builds it, with a fixed id. */
export const makeField = (id: string, type: string, options?: unknown, name = id): Field => {
  let n = 0;
  return defineField(
    { id, type, name, options, isPrimary: false },
    { existing: [], newChoiceId: () => `cho${String(++n).padStart(16, '0')}` },
  );
};

/** A query context over the fields; link titles from `titles` (`fieldId:recordId` or `recordId`). */
export const contextOf = (fields: Field[], titles: Record<string, string> = {}): QueryContext => ({
  fields: new Map(fields.map((f) => [f.id, f])),
  userId: 'usrAliceAAAAAAAAAAA',
  now: new Date('2026-03-01T12:00:00.000Z'),
  linkTitle: (fieldId, recordId) => titles[`${fieldId}:${recordId}`] ?? titles[recordId],
});

/** Record ids `rec…0001`, `…0002`… (19 characters). */
export const recId = (n: number): string => `rec${String(n).padStart(16, '0')}`;

/** Rows with autoNumbers 1, 2, 3… from one cell map each. */
export const rowsOf = (cells: Record<string, StoredCell | undefined>[]): Row[] =>
  cells.map((c, i) => ({ id: recId(i + 1), autoNumber: i + 1, cells: c }));

/** A query with no filter, grouping, sort or search, first page of 1000. */
export const query = (overrides: Partial<Query> = {}): Query => ({
  filter: null,
  groupBy: [],
  sort: [],
  collapsedGroupIds: [],
  search: null,
  skip: 0,
  take: 1000,
  ...overrides,
});

export const alice: UserRef = { id: 'usrAliceAAAAAAAAAAA', title: 'Alice', email: 'alice@example.com' };
export const bob: UserRef = { id: 'usrBobBBBBBBBBBBBBB', title: 'bob', email: 'bob@example.com' };
export const carol: UserRef = { id: 'usrCarolCCCCCCCCCCC', title: 'Carol', email: 'carol@example.com' };
