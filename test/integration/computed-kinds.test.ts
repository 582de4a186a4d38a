/**
 * Lookups and rollups of every kind over HTTP on DynamoDB Local (computed.md 4, 5, 8): the four
 * link relationships, two-way and one-way, single and multiple results, lookups of every field
 * type (formatting copied or overridden, link titles current, formulas, rollups, lookups of
 * lookups), every rollup expression with its result type, and the 400s of section 8.
 */
import { describe, expect, it } from 'vitest';
import { invalid } from '#test/support/answers.ts';
import { pngOf, uploadFile } from '#test/support/attachments.ts';
import { type Cells, type FieldAnswer, newBase } from '#test/support/computed.ts';
import { call, q } from '#test/support/invoke.ts';

const SYMMETRIC: Record<string, string> = {
  oneOne: 'oneOne',
  oneMany: 'manyOne',
  manyOne: 'oneMany',
  manyMany: 'manyMany',
};

const multipleLink = (relationship: string) => relationship === 'oneMany' || relationship === 'manyMany';

/** Host (H1..H3) and Src (A1..A4: Num 5, empty, 5, 9) in one base. */
const hostAndSrc = async () => {
  const b = await newBase();
  const host = await b.table(
    'Host',
    [{ type: 'singleLineText', name: 'Name' }],
    [{ Name: 'H1' }, { Name: 'H2' }, { Name: 'H3' }],
  );
  const src = await b.table(
    'Src',
    [
      { type: 'singleLineText', name: 'Name' },
      { type: 'number', name: 'Num' },
    ],
    [{ Name: 'A1', Num: 5 }, { Name: 'A2' }, { Name: 'A3', Num: 5 }, { Name: 'A4', Num: 9 }],
  );
  return { b, host, src };
};

describe('lookups through every relationship', () => {
  for (const relationship of ['oneOne', 'oneMany', 'manyOne', 'manyMany'])
    for (const isOneWay of [false, true])
      it(`${relationship}${isOneWay ? ' one-way' : ' two-way'}: single or multiple, link order, duplicates kept, empties removed`, async () => {
        const { b, host, src } = await hostAndSrc();
        const link = await b.link(host.id, src.id, relationship, 'Links', isOneWay ? { isOneWay: true } : {});
        const multiple = multipleLink(relationship);
        if (multiple) {
          await b.update(host.id, host.r('H1'), {
            Links: [{ id: src.r('A3') }, { id: src.r('A2') }, { id: src.r('A1') }],
          });
          await b.update(host.id, host.r('H2'), { Links: [{ id: src.r('A4') }] });
        } else {
          await b.update(host.id, host.r('H1'), { Links: { id: src.r('A2') } });
          await b.update(host.id, host.r('H2'), { Links: { id: src.r('A4') } });
        }
        const name = await b.lookup(host.id, link, src.f('Name'), 'singleLineText');
        const num = await b.lookup(host.id, link, src.f('Num'), 'number');
        expect(name).toMatchObject({
          name: 'Name (from Links)',
          type: 'singleLineText',
          isLookup: true,
          isComputed: true,
          cellValueType: 'string',
          dbFieldType: multiple ? 'JSON' : 'TEXT',
          lookupOptions: {
            foreignTableId: src.id,
            linkFieldId: link.id,
            lookupFieldId: src.f('Name'),
            relationship,
            fkHostTableName: expect.any(String),
            selfKeyName: expect.any(String),
            foreignKeyName: expect.any(String),
          },
        });
        expect(name.isMultipleCellValue === true).toBe(multiple);
        expect(num).toMatchObject({
          name: 'Num (from Links)',
          cellValueType: 'number',
          dbFieldType: multiple ? 'JSON' : 'REAL',
        });
        expect(num.isMultipleCellValue === true).toBe(multiple);

        if (multiple) {
          expect(await b.cells(host.id, name.name)).toEqual([['A3', 'A2', 'A1'], ['A4'], undefined]);
          expect(await b.cells(host.id, num.name)).toEqual([[5, 5], [9], undefined]);
          expect(await b.cells(host.id, num.name, 'cellFormat=text')).toEqual([
            '5.00, 5.00',
            '9.00',
            undefined,
          ]);
        } else {
          expect(await b.cells(host.id, name.name)).toEqual(['A2', 'A4', undefined]);
          expect(await b.cells(host.id, num.name)).toEqual([undefined, 9, undefined]);
          expect(await b.cells(host.id, num.name, 'cellFormat=text')).toEqual([undefined, '9.00', undefined]);
        }

        // the other side looks back through the symmetric field (two-way links only)
        if (!isOneWay) {
          const symId = link.options.symmetricFieldId as string;
          expect(typeof symId).toBe('string');
          const sym = (await b.getField(src.id, symId)) as FieldAnswer;
          const back = await b.lookup(src.id, sym, host.f('Name'), 'singleLineText', { name: 'Back' });
          expect(back.lookupOptions).toMatchObject({ relationship: SYMMETRIC[relationship] });
          const multipleBack = multipleLink(SYMMETRIC[relationship] as string);
          const one = (v: string) => (multipleBack ? [v] : v);
          expect(await b.cells(src.id, 'Back')).toEqual(
            multiple
              ? [one('H1'), one('H1'), one('H1'), one('H2')]
              : [undefined, one('H1'), undefined, one('H2')],
          );
        } else {
          expect(link.options.symmetricFieldId).toBeUndefined();
        }

        // a looked-up cell changes in the other table: the lookup follows (one-way links too)
        await b.update(src.id, src.r('A2'), { Name: 'A2x', Num: 1 });
        if (multiple) {
          expect(await b.cells(host.id, name.name)).toEqual([['A3', 'A2x', 'A1'], ['A4'], undefined]);
          expect(await b.cells(host.id, num.name)).toEqual([[5, 1, 5], [9], undefined]);
        } else {
          expect(await b.cells(host.id, name.name)).toEqual(['A2x', 'A4', undefined]);
          expect(await b.cells(host.id, num.name)).toEqual([1, 9, undefined]);
        }
      });
});

/**
 * Host (H1, H2) with a manyMany link `Many` and a manyOne link `One` to Src (A1, A2), whose fields
 * cover every looked-up type; Src links manyMany to Third (T1, T2) through `Thirds`.
 */
const everyType = async () => {
  const b = await newBase();
  const png = await uploadFile(b.token, b.baseId, pngOf(2, 2), 'image/png', 'a.png');
  const third = await b.table(
    'Third',
    [
      { type: 'singleLineText', name: 'Name' },
      { type: 'number', name: 'Score' },
    ],
    [
      { Name: 'T1', Score: 10 },
      { Name: 'T2', Score: 5 },
    ],
  );
  const src = await b.table(
    'Src',
    [
      { type: 'singleLineText', name: 'Name' },
      { type: 'number', name: 'Num', options: { formatting: { type: 'decimal', precision: 1 } } },
      { type: 'date', name: 'When' },
      { type: 'checkbox', name: 'Done' },
      { type: 'singleSelect', name: 'Pick', options: { choices: [{ name: 'x' }, { name: 'y' }] } },
      {
        type: 'multipleSelect',
        name: 'Tags',
        options: { choices: [{ name: 'rap' }, { name: 'rock' }, { name: 'hiphop' }] },
      },
      { type: 'user', name: 'Who' },
      { type: 'attachment', name: 'Files' },
    ],
    [
      {
        Name: 'A1',
        Num: 1.5,
        When: '2024-01-02T00:00:00.000Z',
        Done: true,
        Pick: 'x',
        Tags: ['rap', 'rock'],
        Files: [{ name: 'a.png', token: png.token }],
      },
      { Name: 'A2', Num: 2, Pick: 'y', Tags: ['rap', 'hiphop'] },
    ],
  );
  await b.update(src.id, src.r('A1'), { Who: { id: b.owner.id } }, false);
  const host = await b.table(
    'Host',
    [{ type: 'singleLineText', name: 'Name' }],
    [{ Name: 'H1' }, { Name: 'H2' }],
  );
  const many = await b.link(host.id, src.id, 'manyMany', 'Many');
  const one = await b.link(host.id, src.id, 'manyOne', 'One');
  const thirds = await b.link(src.id, third.id, 'manyMany', 'Thirds');
  await b.update(host.id, host.r('H1'), {
    Many: [{ id: src.r('A1') }, { id: src.r('A2') }],
    One: { id: src.r('A1') },
  });
  await b.update(src.id, src.r('A1'), { Thirds: [{ id: third.r('T1') }, { id: third.r('T2') }] });
  await b.update(src.id, src.r('A2'), { Thirds: [{ id: third.r('T2') }] });
  return { b, third, src, host, many, one, thirds, png };
};

describe('lookups of every field type', () => {
  it('number: values, formatting copied or overridden by the request', async () => {
    const { b, src, host, many, one } = await everyType();
    const num = await b.lookup(host.id, many, src.f('Num'), 'number');
    expect(num.options).toEqual({ formatting: { type: 'decimal', precision: 1 } });
    expect(await b.cells(host.id, num.name)).toEqual([[1.5, 2], undefined]);
    expect(await b.cells(host.id, num.name, 'cellFormat=text')).toEqual(['1.5, 2.0', undefined]);
    const pct = await b.lookup(host.id, many, src.f('Num'), 'number', {
      name: 'Pct',
      options: { formatting: { type: 'percent', precision: 0 } },
    });
    expect(pct.options.formatting).toEqual({ type: 'percent', precision: 0 });
    expect(await b.cells(host.id, 'Pct', 'cellFormat=text')).toEqual(['150%, 200%', undefined]);
    const single = await b.lookup(host.id, one, src.f('Num'), 'number', { name: 'OneNum' });
    expect(single.isMultipleCellValue).not.toBe(true);
    expect(await b.cells(host.id, 'OneNum')).toEqual([1.5, undefined]);
    // a lookup may only send formatting and showAs
    const bad = await b.tryField(host.id, {
      type: 'number',
      isLookup: true,
      options: { formatting: { type: 'decimal', precision: 1 }, expression: '1' },
      lookupOptions: { foreignTableId: src.id, linkFieldId: many.id, lookupFieldId: src.f('Num') },
    });
    expect(bad).toMatchObject({ status: 400, body: { code: 'validation_error' } });
  });

  it('date, checkbox, singleSelect and multipleSelect (flattened) keep type and options', async () => {
    const { b, src, host, many, one } = await everyType();
    const srcFields = Object.fromEntries(src.fields.map((f) => [f.name, f]));
    const when = await b.lookup(host.id, many, src.f('When'), 'date');
    expect(when).toMatchObject({ cellValueType: 'dateTime', isMultipleCellValue: true });
    expect(when.options).toEqual(srcFields.When?.options);
    expect(await b.cells(host.id, when.name)).toEqual([['2024-01-02T00:00:00.000Z'], undefined]);
    expect(await b.cells(host.id, when.name, 'cellFormat=text')).toEqual(['2024-01-02', undefined]);

    const done = await b.lookup(host.id, many, src.f('Done'), 'checkbox');
    expect(done.cellValueType).toBe('boolean');
    expect(await b.cells(host.id, done.name)).toEqual([[true], undefined]);

    const pick = await b.lookup(host.id, many, src.f('Pick'), 'singleSelect');
    expect(pick.options).toEqual(srcFields.Pick?.options);
    expect(await b.cells(host.id, pick.name)).toEqual([['x', 'y'], undefined]);
    const onePick = await b.lookup(host.id, one, src.f('Pick'), 'singleSelect', { name: 'OnePick' });
    expect(onePick.isMultipleCellValue).not.toBe(true);
    expect(await b.cells(host.id, 'OnePick')).toEqual(['x', undefined]);

    const tags = await b.lookup(host.id, many, src.f('Tags'), 'multipleSelect');
    expect(await b.cells(host.id, tags.name)).toEqual([['rap', 'rock', 'rap', 'hiphop'], undefined]);
    expect(await b.cells(host.id, tags.name, 'cellFormat=text')).toEqual([
      'rap, rock, rap, hiphop',
      undefined,
    ]);
    // a single link to a multiple field still gives a list
    const oneTags = await b.lookup(host.id, one, src.f('Tags'), 'multipleSelect', { name: 'OneTags' });
    expect(oneTags.isMultipleCellValue).toBe(true);
    expect(await b.cells(host.id, 'OneTags')).toEqual([['rap', 'rock'], undefined]);
  });

  it('user and attachment answer their items as the looked-up type does', async () => {
    const { b, src, host, many, png } = await everyType();
    const who = await b.lookup(host.id, many, src.f('Who'), 'user');
    expect(await b.cells(host.id, who.name)).toEqual([
      [{ id: b.owner.id, title: b.owner.name, email: b.owner.email, avatarUrl: null }],
      undefined,
    ]);
    const files = await b.lookup(host.id, many, src.f('Files'), 'attachment');
    const [first] = await b.cells(host.id, files.name);
    expect(first).toMatchObject([
      {
        name: 'a.png',
        token: png.token,
        size: png.size,
        mimetype: 'image/png',
        path: png.path,
        width: 2,
        height: 2,
      },
    ]);
    // a looked-up file carries its own download URL, as the source cell does
    expect((first as { presignedUrl: string }[])[0]?.presignedUrl).toMatch(/X-Amz-Signature=/);
    expect(await b.cells(host.id, files.name, 'cellFormat=text')).toEqual([
      `a.png (${png.token})`,
      undefined,
    ]);
  });

  it('link: {id, title} items with current titles; formula and rollup: their values and options', async () => {
    const { b, third, src, host, many, thirds } = await everyType();
    const linked = await b.lookup(host.id, many, thirds.id, 'link');
    expect(linked).toMatchObject({ isMultipleCellValue: true, cellValueType: 'string' });
    const t1 = { id: third.r('T1'), title: 'T1' };
    expect(await b.cells(host.id, linked.name)).toEqual([
      [t1, { id: third.r('T2'), title: 'T2' }, { id: third.r('T2'), title: 'T2' }],
      undefined,
    ]);
    await b.update(third.id, third.r('T2'), { Name: 'T2x' });
    const t2x = { id: third.r('T2'), title: 'T2x' };
    expect(await b.cells(host.id, linked.name)).toEqual([[t1, t2x, t2x], undefined]);
    expect(await b.cells(host.id, linked.name, 'cellFormat=text')).toEqual(['T1, T2x, T2x', undefined]);

    const calc = await b.field(src.id, {
      type: 'formula',
      name: 'Calc',
      options: {
        expression: `{${src.f('Num')}} * 2`,
        formatting: { type: 'currency', precision: 1, symbol: '$' },
      },
    });
    const calcLookup = await b.lookup(host.id, many, calc.id, 'formula');
    expect(calcLookup).toMatchObject({
      type: 'formula',
      isLookup: true,
      cellValueType: 'number',
      isMultipleCellValue: true,
      options: {
        expression: calc.options.expression,
        formatting: { type: 'currency', precision: 1, symbol: '$' },
      },
    });
    expect(await b.cells(host.id, calcLookup.name)).toEqual([[3, 4], undefined]);
    expect(await b.cells(host.id, calcLookup.name, 'cellFormat=text')).toEqual(['$3.0, $4.0', undefined]);

    const score = await b.rollup(src.id, thirds, third.f('Score'), 'sum({values})', { name: 'Score' });
    const scoreLookup = await b.lookup(host.id, many, score.id, 'rollup');
    expect(scoreLookup).toMatchObject({ name: 'Score (from Many)', type: 'rollup', cellValueType: 'number' });
    expect(await b.cells(host.id, scoreLookup.name)).toEqual([[15, 5], undefined]);
    await b.update(third.id, third.r('T2'), { Score: 1 });
    expect(await b.cells(host.id, scoreLookup.name)).toEqual([[11, 1], undefined]);
  });

  it('a lookup of a lookup gives the flattened values and follows a change two tables away', async () => {
    const { b, third, src, host, many, one, thirds } = await everyType();
    const names = await b.lookup(src.id, thirds, third.f('Name'), 'singleLineText', { name: 'ThirdNames' });
    expect(await b.cells(src.id, 'ThirdNames')).toEqual([['T1', 'T2'], ['T2']]);
    const deep = await b.lookup(host.id, many, names.id, 'singleLineText');
    expect(deep).toMatchObject({ name: 'ThirdNames (from Many)', isMultipleCellValue: true, isLookup: true });
    expect(await b.cells(host.id, deep.name)).toEqual([['T1', 'T2', 'T2'], undefined]);
    // through a single link, a multiple looked-up field keeps the list
    const deepOne = await b.lookup(host.id, one, names.id, 'singleLineText', { name: 'DeepOne' });
    expect(deepOne.isMultipleCellValue).toBe(true);
    expect(await b.cells(host.id, 'DeepOne')).toEqual([['T1', 'T2'], undefined]);
    await b.update(third.id, third.r('T1'), { Name: 'T1x' });
    expect(await b.cells(host.id, deep.name)).toEqual([['T1x', 'T2', 'T2'], undefined]);
    expect(await b.cells(host.id, 'DeepOne')).toEqual([['T1x', 'T2'], undefined]);
  });
});

describe('lookup and rollup definitions refused (section 8)', () => {
  it('answers every 400 of the table with its message', async () => {
    const { b, host, src } = await hostAndSrc();
    const link = await b.link(host.id, src.id, 'manyMany', 'Links');
    const sym = link.options.symmetricFieldId as string;
    const ids = { foreignTableId: src.id, linkFieldId: link.id, lookupFieldId: src.f('Name') };
    const cases: [Record<string, unknown>, string | RegExp][] = [
      [{ type: 'singleLineText', isLookup: true }, 'lookupOptions is required when isLookup is true.'],
      [
        { type: 'singleLineText', lookupOptions: ids },
        'lookupOptions is not allowed when isLookup is not true.',
      ],
      [{ type: 'rollup', options: { expression: 'sum({values})' } }, 'lookupOptions is required'],
      [{ type: 'rollup', lookupOptions: ids }, 'rollup field options is required'],
      [
        { type: 'singleLineText', isLookup: true, lookupOptions: { ...ids, linkFieldId: host.f('Name') } },
        `linkFieldId ${host.f('Name')} is invalid`,
      ],
      // a link of another table (the other side of this one) is not a link of this table
      [
        { type: 'singleLineText', isLookup: true, lookupOptions: { ...ids, linkFieldId: sym } },
        `linkFieldId ${sym} is invalid`,
      ],
      [
        { type: 'singleLineText', isLookup: true, lookupOptions: { ...ids, foreignTableId: host.id } },
        `foreignTableId ${host.id} is invalid`,
      ],
      [
        {
          type: 'singleLineText',
          isLookup: true,
          lookupOptions: { ...ids, lookupFieldId: 'fldAAAAAAAAAAAAAAAA' },
        },
        'Lookup field fldAAAAAAAAAAAAAAAA is not exist',
      ],
      // a field of this table is not in the foreign table
      [
        { type: 'singleLineText', isLookup: true, lookupOptions: { ...ids, lookupFieldId: host.f('Name') } },
        `Lookup field ${host.f('Name')} is not exist`,
      ],
      [
        { type: 'number', isLookup: true, lookupOptions: ids },
        'Current field type number is not equal to lookup field (singleLineText)',
      ],
    ];
    for (const [body, message] of cases)
      expect(await b.tryField(host.id, body), JSON.stringify(body)).toMatchObject(invalid(message));
    const fields = await b.list(host.id);
    expect(Object.keys(fields.body.records[0].fields)).toEqual(['Name']);
  });

  it('default names are made unique', async () => {
    const { b, host, src } = await hostAndSrc();
    const link = await b.link(host.id, src.id, 'manyMany', 'Links');
    const first = await b.lookup(host.id, link, src.f('Num'), 'number');
    const second = await b.lookup(host.id, link, src.f('Num'), 'number');
    const roll = await b.rollup(host.id, link, src.f('Num'), 'sum({values})');
    const roll2 = await b.rollup(host.id, link, src.f('Num'), 'max({values})');
    expect([first.name, second.name, roll.name, roll2.name]).toEqual([
      'Num (from Links)',
      'Num (from Links) 2',
      'Num Rollup (from Links)',
      'Num Rollup (from Links) 2',
    ]);
  });
});

/**
 * Host H1 → [A1, A2, A3], H2 → nothing, H3 → [A1, A2] (manyMany `Many`); H1 → A2 (manyOne `One`).
 * Src: A1 (a, 5, 2024-01-01, [rap, rock]), A2 (b, —, 2024-03-01, [rap, hiphop]), A3 (a, 7).
 */
const rollupTables = async () => {
  const b = await newBase();
  const src = await b.table(
    'Src',
    [
      { type: 'singleLineText', name: 'Name' },
      { type: 'number', name: 'Num' },
      { type: 'date', name: 'When' },
      {
        type: 'multipleSelect',
        name: 'Tags',
        options: { choices: [{ name: 'rap' }, { name: 'rock' }, { name: 'hiphop' }] },
      },
    ],
    [
      { Name: 'a', Num: 5, When: '2024-01-01T00:00:00.000Z', Tags: ['rap', 'rock'] },
      { Name: 'b', When: '2024-03-01T00:00:00.000Z', Tags: ['rap', 'hiphop'] },
      { Name: 'a', Num: 7 },
    ],
  );
  const host = await b.table(
    'Host',
    [{ type: 'singleLineText', name: 'Name' }],
    [{ Name: 'H1' }, { Name: 'H2' }, { Name: 'H3' }],
  );
  const many = await b.link(host.id, src.id, 'manyMany', 'Many');
  const one = await b.link(host.id, src.id, 'manyOne', 'One');
  const [a1, a2, a3] = src.ids as [string, string, string];
  await b.update(host.id, host.r('H1'), { Many: [{ id: a1 }, { id: a2 }, { id: a3 }], One: { id: a2 } });
  await b.update(host.id, host.r('H3'), { Many: [{ id: a1 }, { id: a2 }] });
  return { b, src, host, many, one, a1, a2, a3 };
};

describe('rollup expressions (section 5)', () => {
  it.each([
    ['countall({values})', 'Num', 'number', false, [3, undefined, 2]],
    ['counta({values})', 'Num', 'number', false, [2, undefined, 1]],
    ['count({values})', 'Num', 'number', false, [2, undefined, 1]],
    ['sum({values})', 'Num', 'number', false, [12, undefined, 5]],
    ['max({values})', 'Num', 'number', false, [7, undefined, 5]],
    ['min({values})', 'Num', 'number', false, [5, undefined, 5]],
    ['and({values})', 'Num', 'boolean', false, [undefined, undefined, undefined]],
    ['or({values})', 'Num', 'boolean', false, [true, undefined, true]],
    ['xor({values})', 'Num', 'boolean', false, [undefined, undefined, true]],
    ['array_join({values})', 'Name', 'string', false, ['a, b, a', undefined, 'a, b']],
    ['concatenate({values})', 'Name', 'string', false, ['a, b, a', undefined, 'a, b']],
    ['array_unique({values})', 'Name', 'string', true, [['a', 'b'], undefined, ['a', 'b']]],
    ['array_compact({values})', 'Num', 'number', true, [[5, 7], undefined, [5]]],
    [
      'max({values})',
      'When',
      'dateTime',
      false,
      ['2024-03-01T00:00:00.000Z', undefined, '2024-03-01T00:00:00.000Z'],
    ],
    [
      'min({values})',
      'When',
      'dateTime',
      false,
      ['2024-01-01T00:00:00.000Z', undefined, '2024-01-01T00:00:00.000Z'],
    ],
    ['countall({values})', 'Tags', 'number', false, [5, undefined, 4]],
    ['counta({values})', 'Tags', 'number', false, [4, undefined, 4]],
  ] as const)('%s of %s: %s, multiple %s', async (expression, source, cellValueType, multiple, expected) => {
    const { b, src, host, many } = await rollupTables();
    const roll = await b.rollup(host.id, many, src.f(source), expression, { name: 'R' });
    expect(roll).toMatchObject({
      type: 'rollup',
      isComputed: true,
      cellValueType,
      options: { expression },
      dbFieldType: multiple
        ? 'JSON'
        : ({ number: 'REAL', boolean: 'BOOLEAN', string: 'TEXT', dateTime: 'DATETIME' } as const)[
            cellValueType
          ],
    });
    expect(roll.isMultipleCellValue === true).toBe(multiple);
    if (cellValueType === 'number' && !multiple)
      expect(roll.options.formatting).toEqual({ type: 'decimal', precision: 2 });
    if (cellValueType === 'dateTime')
      expect(roll.options.formatting).toEqual({ date: 'YYYY-MM-DD', time: 'None', timeZone: 'UTC' });
    expect(await b.cells(host.id, 'R')).toEqual(expected);
  });

  it('an empty single-record link value empties every rollup, countall and sum included', async () => {
    const { b, src, host, one } = await rollupTables();
    for (const expression of [
      'countall({values})',
      'counta({values})',
      'sum({values})',
      'array_join({values})',
    ])
      await b.rollup(host.id, one, src.f('Num'), expression, { name: expression });
    const [h1] = (await b.list(host.id)).body.records as { fields: Cells }[];
    for (const expression of [
      'countall({values})',
      'counta({values})',
      'sum({values})',
      'array_join({values})',
    ])
      expect(h1?.fields[expression], expression).toBeUndefined();
    // once the linked record has a value, it counts
    await b.update(src.id, src.ids[1] as string, { Num: 4 });
    const h1After = await b.record(host.id, host.r('H1'));
    expect(h1After).toMatchObject({ 'countall({values})': 1, 'counta({values})': 1, 'sum({values})': 4 });
  });

  it('items count singly through a lookup of a multipleSelect: [rap, rock] and [rap, hiphop] give 4', async () => {
    const b = await newBase();
    const genres = await b.table(
      'Genres',
      [
        { type: 'singleLineText', name: 'Name' },
        {
          type: 'multipleSelect',
          name: 'Tags',
          options: { choices: [{ name: 'rap' }, { name: 'rock' }, { name: 'hiphop' }] },
        },
      ],
      [
        { Name: 'g1', Tags: ['rap', 'rock'] },
        { Name: 'g2', Tags: ['rap', 'hiphop'] },
      ],
    );
    const songs = await b.table(
      'Songs',
      [{ type: 'singleLineText', name: 'Name' }],
      [{ Name: 's1' }, { Name: 's2' }],
    );
    const genre = await b.link(songs.id, genres.id, 'manyOne', 'Genre');
    await b.update(songs.id, songs.r('s1'), { Genre: { id: genres.r('g1') } });
    await b.update(songs.id, songs.r('s2'), { Genre: { id: genres.r('g2') } });
    const tags = await b.lookup(songs.id, genre, genres.f('Tags'), 'multipleSelect', { name: 'SongTags' });
    expect(await b.cells(songs.id, 'SongTags')).toEqual([
      ['rap', 'rock'],
      ['rap', 'hiphop'],
    ]);
    const lists = await b.table('Lists', [{ type: 'singleLineText', name: 'Name' }], [{ Name: 'L' }]);
    const songLink = await b.link(lists.id, songs.id, 'manyMany', 'Songs');
    await b.update(lists.id, lists.r('L'), { Songs: [{ id: songs.r('s1') }, { id: songs.r('s2') }] });
    await b.rollup(lists.id, songLink, tags.id, 'countall({values})', { name: 'All' });
    await b.rollup(lists.id, songLink, tags.id, 'array_unique({values})', { name: 'Unique' });
    expect(await b.cells(lists.id, 'All')).toEqual([4]);
    expect(await b.cells(lists.id, 'Unique')).toEqual([['rap', 'rock', 'hiphop']]);
  });

  it('refuses an expression outside the list, or not written name({values}) in lower case', async () => {
    const { b, src, host, many } = await rollupTables();
    for (const expression of [
      'SUM({values})',
      'sum({values}) + 1',
      'average({values})',
      'sum({x})',
      'sum',
      '',
    ])
      expect(
        await b.tryField(host.id, {
          type: 'rollup',
          name: 'Bad',
          options: { expression },
          lookupOptions: { foreignTableId: src.id, linkFieldId: many.id, lookupFieldId: src.f('Num') },
        }),
        expression,
      ).toMatchObject({ status: 400, body: { code: 'validation_error' } });
    expect(Object.keys((await b.list(host.id)).body.records[0].fields)).not.toContain('Bad');
  });

  it('takes a timeZone and formatting; refuses a bad zone and formatting that does not fit', async () => {
    const { b, src, host, many } = await rollupTables();
    const money = await b.rollup(host.id, many, src.f('Num'), 'sum({values})', {
      name: 'Money',
      options: { timeZone: 'Asia/Tokyo', formatting: { type: 'currency', precision: 1, symbol: '$' } },
    });
    expect(money.options).toEqual({
      expression: 'sum({values})',
      timeZone: 'Asia/Tokyo',
      formatting: { type: 'currency', precision: 1, symbol: '$' },
    });
    expect(await b.cells(host.id, 'Money', 'cellFormat=text')).toEqual(['$12.0', undefined, '$5.0']);
    const late = await b.rollup(host.id, many, src.f('When'), 'max({values})', {
      name: 'Late',
      options: { formatting: { date: 'YYYY-MM-DD', time: 'HH:mm', timeZone: 'Asia/Tokyo' } },
    });
    expect(late.options.formatting).toEqual({ date: 'YYYY-MM-DD', time: 'HH:mm', timeZone: 'Asia/Tokyo' });
    expect(await b.cells(host.id, 'Late', 'cellFormat=text')).toEqual([
      '2024-03-01 09:00',
      undefined,
      '2024-03-01 09:00',
    ]);
    const lookupOptions = { foreignTableId: src.id, linkFieldId: many.id, lookupFieldId: src.f('Num') };
    expect(
      await b.tryField(host.id, {
        type: 'rollup',
        options: { expression: 'sum({values})', timeZone: 'Mars/Olympus' },
        lookupOptions,
      }),
    ).toMatchObject(invalid(/"Mars\/Olympus" is not a valid timezone/));
    expect(
      await b.tryField(host.id, {
        type: 'rollup',
        options: { expression: 'array_join({values})', formatting: { type: 'decimal', precision: 1 } },
        lookupOptions,
      }),
    ).toMatchObject({ status: 400, body: { code: 'validation_error' } });
  });
});

/**
 * Host H1..H4 (Qty 1, 3, 2, 5) with a manyMany link to Src S1 (alpha, 5, x), S2 (beta, 1, y),
 * S3 (gamma, 10): H1 → [S1, S2], H2 → [S3], H3 → nothing, H4 → [S2]; one computed field of each
 * kind queried.
 */
const queried = async () => {
  const b = await newBase();
  const src = await b.table(
    'Src',
    [
      { type: 'singleLineText', name: 'Name' },
      { type: 'number', name: 'Num' },
      { type: 'singleSelect', name: 'Pick', options: { choices: [{ name: 'x' }, { name: 'y' }] } },
    ],
    [
      { Name: 'alpha', Num: 5, Pick: 'x' },
      { Name: 'beta', Num: 1, Pick: 'y' },
      { Name: 'gamma', Num: 10 },
    ],
  );
  const host = await b.table(
    'Host',
    [
      { type: 'singleLineText', name: 'Name' },
      { type: 'number', name: 'Qty' },
    ],
    [
      { Name: 'H1', Qty: 1 },
      { Name: 'H2', Qty: 3 },
      { Name: 'H3', Qty: 2 },
      { Name: 'H4', Qty: 5 },
    ],
  );
  const many = await b.link(host.id, src.id, 'manyMany', 'Many');
  const [s1, s2, s3] = src.ids as [string, string, string];
  await b.update(host.id, host.r('H1'), { Many: [{ id: s1 }, { id: s2 }] });
  await b.update(host.id, host.r('H2'), { Many: [{ id: s3 }] });
  await b.update(host.id, host.r('H4'), { Many: [{ id: s2 }] });
  const qty = `{${host.f('Qty')}}`;
  const formula = (name: string, expression: string) =>
    b.field(host.id, { type: 'formula', name, options: { expression } });
  const f = {
    N: await formula('N', `${qty} * 2`),
    T: await formula('T', `{${host.f('Name')}} & "-x"`),
    D: await formula('D', `DATE_ADD("2024-01-01", ${qty}, "day")`),
    B: await formula('B', `${qty} > 2`),
    LT: await b.lookup(host.id, many, src.f('Name'), 'singleLineText', { name: 'LT' }),
    LN: await b.lookup(host.id, many, src.f('Num'), 'number', { name: 'LN' }),
    LS: await b.lookup(host.id, many, src.f('Pick'), 'singleSelect', { name: 'LS' }),
    RS: await b.rollup(host.id, many, src.f('Num'), 'sum({values})', { name: 'RS' }),
  };
  const filtered = (fieldId: string, operator: string, value: unknown) =>
    b.names(host.id, q({ filter: { conjunction: 'and', filterSet: [{ fieldId, operator, value }] } }));
  return { b, src, host, many, f, filtered, s2 };
};

describe('filter, sort, group and search by computed cells (section 7)', () => {
  it('renders every kind as text (cellFormat=text)', async () => {
    const { b, host } = await queried();
    const res = await b.list(host.id, 'cellFormat=text');
    const rows = res.body.records.map((r: { fields: Cells }) => r.fields);
    expect(rows[0]).toEqual({
      Name: 'H1',
      Qty: '1.00',
      Many: 'alpha, beta',
      N: '2.00',
      T: 'H1-x',
      D: '2024-01-02',
      LT: 'alpha, beta',
      LN: '5.00, 1.00',
      LS: 'x, y',
      RS: '6.00',
    });
    expect(rows[1]).toMatchObject({ B: 'true', D: '2024-01-04', LN: '10.00', RS: '10.00' });
  });

  it('filters formulas by their result type and multi-valued lookups item by item', async () => {
    const { f, filtered } = await queried();
    expect(await filtered(f.N.id, 'isGreater', 4)).toEqual(['H2', 'H4']);
    expect(await filtered(f.T.id, 'contains', '3-X')).toEqual(['H3']);
    expect(
      await filtered(f.D.id, 'isAfter', {
        mode: 'exactDate',
        exactDate: '2024-01-03T00:00:00.000Z',
        timeZone: 'UTC',
      }),
    ).toEqual(['H2', 'H4']);
    expect(await filtered(f.B.id, 'is', true)).toEqual(['H2', 'H4']);
    expect(await filtered(f.B.id, 'is', null)).toEqual(['H1', 'H3']);
    // lookup of text: some item / no item, case ignored, literal substring
    expect(await filtered(f.LT.id, 'contains', 'BET')).toEqual(['H1', 'H4']);
    expect(await filtered(f.LT.id, 'is', 'Gamma')).toEqual(['H2']);
    expect(await filtered(f.LT.id, 'isNot', 'beta')).toEqual(['H2', 'H3']);
    expect(await filtered(f.LT.id, 'doesNotContain', 'a')).toEqual(['H3']);
    expect(await filtered(f.LT.id, 'contains', '.')).toEqual([]);
    expect(await filtered(f.LT.id, 'isEmpty', null)).toEqual(['H3']);
    // lookup of numbers
    expect(await filtered(f.LN.id, 'isGreater', 6)).toEqual(['H2']);
    expect(await filtered(f.LN.id, 'is', 1)).toEqual(['H1', 'H4']);
    expect(await filtered(f.LN.id, 'isLess', '2')).toEqual(['H1', 'H4']);
    // multiple lookup of a singleSelect: the multipleSelect set
    expect(await filtered(f.LS.id, 'hasAnyOf', ['x'])).toEqual(['H1']);
    expect(await filtered(f.LS.id, 'hasNoneOf', ['y'])).toEqual(['H2', 'H3']);
    expect(await filtered(f.LS.id, 'isExactly', ['y'])).toEqual(['H4']);
    expect(await filtered(f.LS.id, 'isNotEmpty', null)).toEqual(['H1', 'H4']);
    // rollup of numbers
    expect(await filtered(f.RS.id, 'isGreaterEqual', 6)).toEqual(['H1', 'H2']);
    expect(await filtered(f.RS.id, 'isEmpty', null)).toEqual(['H3']);
  });

  it('refuses an operator outside the kind set', async () => {
    const { b, host, f } = await queried();
    for (const [fieldId, operator, value] of [
      [f.B.id, 'isGreater', 1],
      [f.LS.id, 'is', 'x'],
      [f.RS.id, 'contains', '1'],
      [f.N.id, 'contains', '1'],
    ] as const) {
      const res = await call('list-records', {
        token: b.token,
        params: { tableId: host.id },
        query: q({ filter: { conjunction: 'and', filterSet: [{ fieldId, operator, value }] } }),
      });
      expect(res, `${fieldId} ${operator}`).toMatchObject({
        status: 400,
        body: { code: 'validation_error' },
      });
    }
  });

  it('sorts by result type; multi-valued by first item as a number, empty first in asc', async () => {
    const { b, host, f } = await queried();
    const sorted = (fieldId: string, order: string) => b.names(host.id, q({ orderBy: [{ fieldId, order }] }));
    expect(await sorted(f.N.id, 'asc')).toEqual(['H1', 'H3', 'H2', 'H4']);
    expect(await sorted(f.T.id, 'desc')).toEqual(['H4', 'H3', 'H2', 'H1']);
    expect(await sorted(f.D.id, 'desc')).toEqual(['H4', 'H2', 'H3', 'H1']);
    expect(await sorted(f.B.id, 'asc')).toEqual(['H1', 'H3', 'H2', 'H4']);
    expect(await sorted(f.LN.id, 'asc')).toEqual(['H3', 'H4', 'H1', 'H2']);
    expect(await sorted(f.LT.id, 'desc')).toEqual(['H2', 'H4', 'H1', 'H3']);
    expect(await sorted(f.LS.id, 'asc')).toEqual(['H2', 'H3', 'H1', 'H4']);
    expect(await sorted(f.RS.id, 'asc')).toEqual(['H3', 'H4', 'H1', 'H2']);
  });

  it('groups by computed values: numbers, booleans, and multi-valued cells as arrays', async () => {
    const { b, host, f } = await queried();
    const points = async (fieldId: string) => {
      const res = await b.list(host.id, q({ groupBy: [{ fieldId, order: 'asc' }] }));
      return {
        names: res.body.records.map((r: { name: string }) => r.name),
        points: res.body.extra.groupPoints.map((p: { type: number; value?: unknown; count?: number }) =>
          p.type === 0 ? { value: p.value } : { count: p.count },
        ),
      };
    };
    expect(await points(f.RS.id)).toEqual({
      names: ['H3', 'H4', 'H1', 'H2'],
      points: [
        { value: null },
        { count: 1 },
        { value: 1 },
        { count: 1 },
        { value: 6 },
        { count: 1 },
        { value: 10 },
        { count: 1 },
      ],
    });
    expect(await points(f.B.id)).toEqual({
      names: ['H1', 'H3', 'H2', 'H4'],
      points: [{ value: null }, { count: 2 }, { value: true }, { count: 2 }],
    });
    expect(await points(f.LT.id)).toEqual({
      names: ['H3', 'H1', 'H4', 'H2'],
      points: [
        { value: null },
        { count: 1 },
        { value: ['alpha', 'beta'] },
        { count: 1 },
        { value: ['beta'] },
        { count: 1 },
        { value: ['gamma'] },
        { count: 1 },
      ],
    });
    expect(await points(f.LN.id)).toMatchObject({ names: ['H3', 'H4', 'H1', 'H2'] });
  });

  it('searches the text rendering of computed cells', async () => {
    const { b, host, f } = await queried();
    const search = (value: string, fieldId?: string) =>
      b.names(
        host.id,
        fieldId
          ? q({ 'search[]': value }).concat(`&search[]=${fieldId}&search[]=true`)
          : `search[]=${value}&search[]=&search[]=true`,
      );
    expect(await search('10', f.N.id)).toEqual(['H4']);
    expect(await search('gam', f.LT.id)).toEqual(['H2']);
    expect(await search('6.00', f.RS.id)).toEqual(['H1']);
    expect(await search('2024-01-04', f.D.id)).toEqual(['H2']);
    expect(await search('x, y', f.LS.id)).toEqual(['H1']);
    expect(await search('beta')).toEqual(['H1', 'H4']);
    const hits = await b.list(host.id, `search[]=gamma&search[]=${f.LT.id}`);
    expect(hits.body.extra.searchHitIndex).toEqual([{ recordId: host.r('H2'), fieldId: f.LT.id }]);
  });

  it('a view filter on a lookup follows recomputation', async () => {
    const { b, host, f, src, s2 } = await queried();
    const res = await call('update-view', {
      token: b.token,
      params: { tableId: host.id, viewId: host.viewId },
      body: {
        filter: { conjunction: 'and', filterSet: [{ fieldId: f.LN.id, operator: 'isGreater', value: 6 }] },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await b.names(host.id, `viewId=${host.viewId}`)).toEqual(['H2']);
    await b.update(src.id, s2, { Num: 7 });
    expect(await b.names(host.id, `viewId=${host.viewId}`)).toEqual(['H1', 'H2', 'H4']);
    expect(await b.cells(host.id, 'RS', `viewId=${host.viewId}`)).toEqual([12, 10, 7]);
  });
});

describe('lookups and rollups follow their sources', () => {
  it('renamed choices of the looked-up select reach the lookup options and cells', async () => {
    const { b, src, host, f } = await queried();
    const pick = await b.getField(src.id, src.f('Pick'));
    const choices = (pick.options.choices as { id: string; name: string; color: string }[]).map((c) =>
      c.name === 'x' ? { ...c, name: 'xx' } : c,
    );
    const res = await b.patchField(src.id, pick.id, { options: { choices } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const lookup = await b.getField(host.id, f.LS.id);
    expect((lookup.options.choices as { name: string }[]).map((c) => c.name)).toEqual(['xx', 'y']);
    expect(await b.cells(host.id, 'LS')).toEqual([['xx', 'y'], undefined, undefined, ['y']]);
  });

  it('a rollup of a link joins current titles; sum converts numeric text', async () => {
    const { b, src, host, many } = await queried();
    const back = await b.getField(src.id, many.options.symmetricFieldId as string);
    await b.rollup(src.id, back, host.f('Name'), 'array_join({values})', { name: 'Hosts' });
    expect(await b.cells(src.id, 'Hosts')).toEqual(['H1', 'H1, H4', 'H2']);
    // a rollup of a link field: the linked records' titles, current
    await b.rollup(host.id, many, back.id, 'array_join({values})', { name: 'Via' });
    expect(await b.cells(host.id, 'Via')).toEqual(['H1, H1, H4', 'H2', undefined, 'H1, H4']);
    const code = await b.field(host.id, { type: 'singleLineText', name: 'Code' });
    await b.update(host.id, host.r('H1'), { Code: '2.5' });
    await b.update(host.id, host.r('H4'), { Code: 'abc' });
    await b.rollup(src.id, back, code.id, 'sum({values})', { name: 'CodeSum' });
    expect(await b.cells(src.id, 'CodeSum')).toEqual([2.5, 2.5, 0]);
    // a renamed linked record: the joined titles follow
    const linkRoll = await b.rollup(host.id, many, src.f('Name'), 'concatenate({values})', { name: 'Cat' });
    expect(linkRoll.cellValueType).toBe('string');
    await b.update(src.id, src.ids[1] as string, { Name: 'BETA' });
    expect(await b.cells(host.id, 'Cat')).toEqual(['alpha, BETA', 'gamma', undefined, 'BETA']);
  });

  it('a rollup of a link field follows a renamed record two links away', async () => {
    const { b, src, host, many } = await queried();
    const back = await b.getField(src.id, many.options.symmetricFieldId as string);
    await b.rollup(host.id, many, back.id, 'array_join({values})', { name: 'Via' });
    expect(await b.cells(host.id, 'Via')).toEqual(['H1, H1, H4', 'H2', undefined, 'H1, H4']);
    await b.update(host.id, host.r('H4'), { Name: 'H4x' });
    expect(await b.cells(host.id, 'Via')).toEqual(['H1, H1, H4x', 'H2', undefined, 'H1, H4x']);
  });

  it('a formula over a multi-valued number lookup: 0 items empty, 1 the number, more an error', async () => {
    const { b, host, f } = await queried();
    await b.field(host.id, { type: 'formula', name: 'Plus', options: { expression: `{${f.LN.id}} + 1` } });
    await b.field(host.id, {
      type: 'formula',
      name: 'Err',
      options: { expression: `IS_ERROR({${f.LN.id}} * 1)` },
    });
    expect(await b.cells(host.id, 'Plus')).toEqual([undefined, 11, 1, 2]);
    expect(await b.cells(host.id, 'Err')).toEqual([true, undefined, undefined, undefined]);
  });

  it('a one-way lookup follows a looked-up record deleted in the other table', async () => {
    const b = await newBase();
    const src = await b.table(
      'Src',
      [{ type: 'singleLineText', name: 'Name' }],
      [{ Name: 'A1' }, { Name: 'A2' }],
    );
    const host = await b.table('Host', [{ type: 'singleLineText', name: 'Name' }], [{ Name: 'H1' }]);
    const link = await b.link(host.id, src.id, 'manyMany', 'Links', { isOneWay: true });
    await b.update(host.id, host.r('H1'), { Links: [{ id: src.r('A1') }, { id: src.r('A2') }] });
    await b.lookup(host.id, link, src.f('Name'), 'singleLineText', { name: 'L' });
    await b.rollup(host.id, link, src.f('Name'), 'countall({values})', { name: 'C' });
    expect(await b.record(host.id, host.r('H1'))).toMatchObject({ L: ['A1', 'A2'], C: 2 });
    const del = await call('delete-record', {
      token: b.token,
      params: { tableId: src.id, recordId: src.r('A1') },
    });
    expect(del.status).toBe(200);
    const h1 = await b.record(host.id, host.r('H1'));
    expect(h1).toMatchObject({ L: ['A2'], C: 1 });
  });

  it('a broken rollup converted to a valid configuration loses hasError and recomputes', async () => {
    const { b, src, host, many } = await queried();
    const extra = await b.field(src.id, { type: 'number', name: 'Extra' });
    await b.update(src.id, src.ids[0] as string, { Extra: 4 });
    const roll = await b.rollup(host.id, many, extra.id, 'sum({values})', { name: 'X' });
    expect(await b.cells(host.id, 'X')).toEqual([4, 0, undefined, 0]);
    await b.deleteField(src.id, extra.id);
    expect((await b.getField(host.id, roll.id)).hasError).toBe(true);
    expect(await b.cells(host.id, 'X')).toEqual([undefined, undefined, undefined, undefined]);
    const res = await b.patchField(host.id, roll.id, {
      lookupOptions: { foreignTableId: src.id, linkFieldId: many.id, lookupFieldId: src.f('Num') },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.hasError).toBeUndefined();
    expect(await b.cells(host.id, 'X')).toEqual([6, 10, undefined, 1]);
  });
});

describe('formulas over lookups', () => {
  it('a formula over a lookup of a link sees titles, not ids (1.3), and follows a rename', async () => {
    const { b, src, host, many } = await queried();
    const back = await b.getField(src.id, many.options.symmetricFieldId as string);
    const via = await b.lookup(host.id, many, back.id, 'link', { name: 'ViaLinks' });
    await b.field(host.id, { type: 'formula', name: 'ViaText', options: { expression: `{${via.id}} & ""` } });
    expect(await b.cells(host.id, 'ViaText')).toEqual(['H1,H1,H4', 'H2', undefined, 'H1,H4']);
    await b.update(host.id, host.r('H4'), { Name: 'H4x' });
    expect(await b.cells(host.id, 'ViaText')).toEqual(['H1,H1,H4x', 'H2', undefined, 'H1,H4x']);
  });
});
