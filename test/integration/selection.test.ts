/**
 * Grid selections (teable-routes.md "Selection"): ranges over the view's visible fields and the
 * list's records; ids, copy as text, clear, delete.
 */
import { describe, expect, it } from 'vitest';
import type { Field } from '#test/support/answers.ts';
import { invalid } from '#test/support/answers.ts';
import { call } from '#test/support/invoke.ts';
import { listedTable } from '#test/support/workspace.ts';

const grid = () =>
  listedTable(
    [
      { type: 'singleLineText', name: 'Name' },
      { type: 'number', name: 'Qty' },
      { type: 'longText', name: 'Notes' },
    ],
    3,
    (i) =>
      [
        { Name: 'a', Qty: 1, Notes: 'tab\there' },
        { Name: 'b', Qty: 2, Notes: 'say "hi"' },
        { Name: 'c', Qty: 3 },
      ][i] as Record<string, unknown>,
  );

type T = Awaited<ReturnType<typeof grid>>;
const ids = (t: T) => (t.table.fields as Field[]).map((f) => f.id);
const q = (ranges: unknown, extra = '') => `ranges=${encodeURIComponent(JSON.stringify(ranges))}${extra}`;

describe('selection routes', () => {
  it('range-to-id: a block, rows and columns', async () => {
    const t = await grid();
    const [name, qty, notes] = ids(t);
    const get = (query: string) =>
      call('get-selection-range-to-id', { token: t.token, params: { tableId: t.tableId }, query });
    expect(
      (
        await get(
          q(
            [
              [0, 1],
              [1, 2],
            ],
            '&returnType=all',
          ),
        )
      ).body,
    ).toEqual({
      recordIds: [t.ids[1], t.ids[2]],
      fieldIds: [name, qty],
    });
    expect(
      (
        await get(
          q(
            [
              [0, 0],
              [2, 2],
            ],
            '&type=rows&returnType=recordId',
          ),
        )
      ).body,
    ).toEqual({
      recordIds: [t.ids[0], t.ids[2]],
    });
    expect((await get(q([[2, 2]], '&type=columns&returnType=fieldId'))).body).toEqual({ fieldIds: [notes] });
    expect(await get(q([[0, 0]], '&returnType=all'))).toMatchObject(
      invalid('ranges: a block needs two corners per range'),
    );
    expect(await get('ranges=nope&returnType=all')).toMatchObject(invalid('ranges: not valid JSON'));
    expect(
      (
        await get(
          q(
            [
              [0, 0],
              [0, 0],
            ],
            '&returnType=some',
          ),
        )
      ).status,
    ).toBe(400);
  });

  it('copy: cells as tab-separated text, quoted as spreadsheets do, with the header', async () => {
    const t = await grid();
    const res = await call('copy-selection', {
      token: t.token,
      params: { tableId: t.tableId },
      query: q([
        [0, 0],
        [2, 1],
      ]),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.content).toBe('a\t1.00\t"tab\there"\nb\t2.00\t"say ""hi"""');
    expect(res.body.header.map((f: Field) => f.name)).toEqual(['Name', 'Qty', 'Notes']);
  });

  it('clear empties the covered cells in one write; delete removes the covered records', async () => {
    const t = await grid();
    const cleared = await call('clear-selection', {
      token: t.token,
      params: { tableId: t.tableId },
      body: {
        ranges: [
          [1, 0],
          [2, 1],
        ],
      },
    });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
    const after = (await t.listOk()).body.records.map((r: { fields: Record<string, unknown> }) => r.fields);
    expect(after).toEqual([{ Name: 'a' }, { Name: 'b' }, { Name: 'c', Qty: 3 }]);
    const deleted = await call('delete-selection', {
      token: t.token,
      params: { tableId: t.tableId },
      query: q(
        [
          [0, 0],
          [0, 1],
        ],
        '&type=rows',
      ),
    });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ ids: [t.ids[0], t.ids[1]] });
    expect(await t.names()).toEqual(['c']);
  });
});
