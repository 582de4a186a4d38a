/** Plain-data fixtures for the query engine's unit tests (sort, groups, search, engine). */
import fc from 'fast-check';
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

/**
 * Up to 40 rows of generated cells (a cell left undefined is empty); half the time the view has
 * a manual order and every row an order key (some shared, as defaults are).
 */
export const rowsArbOf = (cellArb: { [fieldId: string]: fc.Arbitrary<unknown> }): fc.Arbitrary<Row[]> =>
  fc
    .tuple(
      fc.array(fc.record({ ...cellArb, key: fc.constantFrom('a0', 'a1', 'a2', 'b') }), { maxLength: 40 }),
      fc.boolean(),
    )
    .map(([items, manual]) =>
      items.map(({ key, ...cells }, i): Row => {
        const clean: Record<string, StoredCell | undefined> = {};
        for (const [id, v] of Object.entries(cells)) if (v !== undefined) clean[id] = v as StoredCell;
        return {
          id: recId(i + 1),
          autoNumber: i + 1,
          ...(manual ? { orderKey: key as string } : {}),
          cells: clean,
        };
      }),
    );

/** Up to `max` sort specs over distinct fields of `ids`. */
export const specsArbOf =
  (ids: readonly string[]) =>
  (max: number): fc.Arbitrary<{ fieldId: string; order: 'asc' | 'desc' }[]> =>
    fc.uniqueArray(
      fc.record({
        fieldId: fc.constantFrom(...ids),
        order: fc.constantFrom('asc' as const, 'desc' as const),
      }),
      { maxLength: max, selector: (s) => s.fieldId },
    );
