/**
 * Grid selections (teable-routes.md "Selection"): ranges over the view's visible fields and the
 * list's records; ids, copy as text, clear, delete, paste and its preview.
 */
import { describe, expect, it } from 'vitest';
import type { Field } from '#test/support/answers.ts';
import { forbidden, invalid } from '#test/support/answers.ts';
import { call } from '#test/support/invoke.ts';
import { listedTable, newMember } from '#test/support/workspace.ts';

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

  describe('paste', () => {
    /** Name, Qty (number), Tag (select: red), Double (formula: Qty × 2); records a (1, red) and b (2). */
    const pasteGrid = async () => {
      const t = await listedTable(
        [
          { type: 'singleLineText', name: 'Name' },
          { type: 'number', name: 'Qty' },
          { type: 'singleSelect', name: 'Tag', options: { choices: [{ name: 'red' }] } },
        ],
        2,
        (i) =>
          [
            { Name: 'a', Qty: 1, Tag: 'red' },
            { Name: 'b', Qty: 2 },
          ][i] as Record<string, unknown>,
      );
      const qty = (t.table.fields as Field[])[1] as Field;
      const double = await call('create-field', {
        token: t.token,
        params: { tableId: t.tableId },
        body: { type: 'formula', name: 'Double', options: { expression: `{${qty.id}} * 2` } },
      });
      if (double.status !== 201)
        throw new Error(`create-field: ${double.status} ${JSON.stringify(double.body)}`);
      const paste = (body: Record<string, unknown>, token = t.token) =>
        call('paste-selection', { token, params: { tableId: t.tableId }, body });
      const preview = (body: Record<string, unknown>, token = t.token) =>
        call('temporary-paste-selection', { token, params: { tableId: t.tableId }, body });
      const rows = async () =>
        (await t.listOk()).body.records.map((r: { fields: Record<string, unknown> }) => r.fields);
      const fields = async () =>
        (await call('list-fields', { token: t.token, params: { tableId: t.tableId } })).body as Field[];
      return { ...t, paste, preview, rows, fields, doubleId: double.body.id as string };
    };
    const at = (col: number, row: number) => [
      [col, row],
      [col, row],
    ];

    it('writes text into existing cells as a typecast write, computed cells skipped', async () => {
      const t = await pasteGrid();
      const res = await t.paste({ ranges: at(0, 0), content: 'x\t5\tblue\t99\ny\t1,234.5\tred\t99\n' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({
        ranges: [
          [0, 0],
          [3, 1],
        ],
      });
      expect(await t.rows()).toEqual([
        { Name: 'x', Qty: 5, Tag: 'blue', Double: 10 },
        { Name: 'y', Qty: 1234.5, Tag: 'red', Double: 2469 },
      ]);
      const tag = (await t.fields()).find((f) => f.name === 'Tag') as Field & {
        options: { choices: { name: string }[] };
      };
      expect(tag.options.choices.map((c) => c.name)).toEqual(['red', 'blue']);
    });

    it('takes rows of cells too; empty text clears a cell, a short row leaves the rest', async () => {
      const t = await pasteGrid();
      const res = await t.paste({
        ranges: [
          [1, 0],
          [2, 1],
        ],
        content: [['7', ''], ['8']],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.ranges).toEqual([
        [1, 0],
        [2, 1],
      ]);
      expect(await t.rows()).toEqual([
        { Name: 'a', Qty: 7, Double: 14 },
        { Name: 'b', Qty: 8, Double: 16 },
      ]);
    });

    it('grows the grid: extra rows become records, extra columns singleLineText fields', async () => {
      const t = await pasteGrid();
      const res = await t.paste({
        ranges: [
          [0, 1],
          [0, 1],
        ],
        type: undefined,
        content: 'b2\t3\tred\t0\tnew 1\tnew 2\nc\t4\tgreen\t0\tnew 3',
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.ranges).toEqual([
        [0, 1],
        [5, 2],
      ]);
      const fields = await t.fields();
      expect(fields.map((f) => [f.name, f.type])).toEqual([
        ['Name', 'singleLineText'],
        ['Qty', 'number'],
        ['Tag', 'singleSelect'],
        ['Double', 'formula'],
        ['Label', 'singleLineText'],
        ['Label 2', 'singleLineText'],
      ]);
      expect(await t.rows()).toEqual([
        { Name: 'a', Qty: 1, Tag: 'red', Double: 2 },
        { Name: 'b2', Qty: 3, Tag: 'red', Double: 6, Label: 'new 1', 'Label 2': 'new 2' },
        { Name: 'c', Qty: 4, Tag: 'green', Double: 8, Label: 'new 3' },
      ]);
    });

    it('a write that fails after the grid grew undoes the growth: no field, no record left', async () => {
      const t = await listedTable(
        [
          { type: 'singleLineText', name: 'Name', unique: true },
          { type: 'number', name: 'Qty', notNull: true },
        ],
        2,
        (i) =>
          [
            { Name: 'a', Qty: 1 },
            { Name: 'b', Qty: 2 },
          ][i] as Record<string, unknown>,
      );
      const paste = (content: string, row: number) =>
        call('paste-selection', {
          token: t.token,
          params: { tableId: t.tableId },
          body: { ranges: at(0, row), content },
        });
      const fieldIds = async () =>
        ((await call('list-fields', { token: t.token, params: { tableId: t.tableId } })).body as Field[]).map(
          (f) => f.id,
        );
      const rows = async () =>
        (await t.listOk()).body.records.map((r: { fields: Record<string, unknown> }) => r.fields);
      const before = { rows: await rows(), fields: await fieldIds() };
      // the new record lacks a Qty, which may not be empty: the create fails after the new column
      const failedCreate = await paste('b\t2\tx\nc\t\ty', 1);
      expect(failedCreate.status, JSON.stringify(failedCreate.body)).toBe(400);
      expect(await fieldIds()).toEqual(before.fields);
      expect(await rows()).toEqual(before.rows);
      // the existing row takes a Name that is taken: the update fails after the new record
      const failedUpdate = await paste('b\t1\nb\t2\nc\t3', 0);
      expect(failedUpdate.status, JSON.stringify(failedUpdate.body)).toBeGreaterThanOrEqual(400);
      expect(failedUpdate.status).toBeLessThan(500);
      expect(await rows()).toEqual(before.rows);
      expect(await fieldIds()).toEqual(before.fields);
    });

    it('pastes whole rows from their first column (type=rows)', async () => {
      const t = await pasteGrid();
      const res = await t.paste({ ranges: [[1, 1]], type: 'rows', content: 'z\t9' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.ranges).toEqual([
        [0, 1],
        [1, 1],
      ]);
      expect((await t.rows())[1]).toEqual({ Name: 'z', Qty: 9, Double: 18 });
    });

    it('temporaryPaste answers the typecast values by field id and writes nothing', async () => {
      const t = await pasteGrid();
      const [, qty, tag] = (t.table.fields as Field[]).map((f) => f.id);
      const before = await t.rows();
      const res = await t.preview({ ranges: at(1, 0), content: '5\tblue\t99\n\tred\nabc' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual([
        { fields: { [qty as string]: 5, [tag as string]: 'blue' } },
        { fields: { [tag as string]: 'red' } },
        { fields: {} },
      ]);
      expect(await t.rows()).toEqual(before);
      const tagField = (await t.fields()).find((f) => f.name === 'Tag') as Field & {
        options: { choices: { name: string }[] };
      };
      expect(tagField.options.choices.map((c) => c.name)).toEqual(['red']);
    });

    it.each([
      ['ranges that are not JSON', { ranges: 'nope', content: 'x' }, 'ranges: not valid JSON'],
      [
        'one corner for a block',
        { ranges: [[0, 0]], content: 'x' },
        'ranges: a block needs two corners per range',
      ],
      [
        'a start past the last row',
        { ranges: at(0, 3), content: 'x' },
        'ranges: row 3 is past the last row (1)',
      ],
      [
        'a start past the last column',
        { ranges: at(5, 0), content: 'x' },
        'ranges: column 5 is past the last column (3)',
      ],
      ['content that is a number', { ranges: at(0, 0), content: 5 }, /^content: must be/],
      ['content without rows', { ranges: at(0, 0), content: [] }, 'content: nothing to paste'],
      ['a header that is no list of fields', { ranges: at(0, 0), content: 'x', header: [1] }, /^header: /],
      ['a bad type', { ranges: at(0, 0), content: 'x', type: 'cells' }, 'type: must be "rows" or "columns"'],
    ])('paste refuses %s with a 400, writing nothing', async (_name, body, message) => {
      const t = await pasteGrid();
      const before = await t.rows();
      expect(await t.paste(body)).toMatchObject(invalid(message));
      expect(await t.rows()).toEqual(before);
    });

    it('temporaryPaste refuses bad ranges and bad content with a 400', async () => {
      const t = await pasteGrid();
      expect(await t.preview({ ranges: 'nope', content: 'x' })).toMatchObject(
        invalid('ranges: not valid JSON'),
      );
      expect(await t.preview({ ranges: at(0, 0), content: { a: 1 } })).toMatchObject(
        invalid(/^content: must be/),
      );
      expect(await t.preview({ ranges: at(9, 0), content: 'x' })).toMatchObject(
        invalid('ranges: column 9 is past the last column (3)'),
      );
    });

    it('growing needs field|create (editor) or record|create (token scope): 403, nothing written', async () => {
      const t = await pasteGrid();
      const before = await t.rows();
      const editor = await newMember(t, 'editor');
      expect(await t.paste({ ranges: at(3, 0), content: '1\t2' }, editor.auth)).toMatchObject(
        forbidden(`not allowed to operate field|create on ${t.tableId}`),
      );
      // inside the grid the editor may paste
      expect((await t.paste({ ranges: at(0, 0), content: 'e' }, editor.auth)).status).toBe(200);
      const token = await call('create-access-token', {
        token: t.token,
        body: {
          name: 'paste',
          scopes: ['record|read', 'record|update'],
          expiredTime: new Date(Date.now() + 86_400_000).toISOString(),
        },
      });
      expect(token.status, JSON.stringify(token.body)).toBe(201);
      const scoped = `Bearer ${token.body.token}`;
      expect(await t.paste({ ranges: at(0, 1), content: 'f\ng' }, scoped)).toMatchObject(
        forbidden(`not allowed to operate record|create on ${t.tableId}`),
      );
      expect(await t.rows()).toEqual([{ ...before[0], Name: 'e' }, before[1]]);
    });
  });
});
