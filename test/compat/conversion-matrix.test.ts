/**
 * Field conversion between every pair of types (attachment as a target), through Teable's own
 * client (`@teable/openapi` 1.10.0): for each pair a field of the first type, with a representative value in one record and
 * an empty cell in another, a formula over it and a lookup of it from another table, is converted
 * to the second type. Every conversion answers the new field (never a refusal, never a 500); the
 * empty cell stays empty unless the new type computes itself; the formula and the lookup keep
 * answering. The values of the conversions whose outcome Teable defines plainly are checked one
 * by one below the sweep.
 */
import {
  configApi,
  convertField,
  createBase,
  createField,
  createSpace,
  createTable,
  getField,
  getRecords,
  updateRecord,
} from '@teable/openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { newUser } from '#test/support/fixtures.ts';
import { useTestServer } from '#test/support/server.ts';

const api = useTestServer();

type Body = Record<string, unknown>;

/** Each type as a field body, and the representative value written into it (none: computed). */
const TYPES: Record<string, { body: Body; value?: (ctx: Ctx) => unknown }> = {
  singleLineText: { body: { type: 'singleLineText' }, value: () => '7' },
  longText: { body: { type: 'longText' }, value: () => 'red\nblue' },
  number: {
    body: { type: 'number', options: { formatting: { type: 'decimal', precision: 1 } } },
    value: () => 7.25,
  },
  rating: {
    body: { type: 'rating', options: { icon: 'star', color: 'yellowBright', max: 5 } },
    value: () => 3,
  },
  checkbox: { body: { type: 'checkbox' }, value: () => true },
  singleSelect: {
    body: { type: 'singleSelect', options: { choices: [{ name: 'red' }, { name: 'blue' }] } },
    value: () => 'red',
  },
  multipleSelect: {
    body: { type: 'multipleSelect', options: { choices: [{ name: 'red' }, { name: 'blue' }] } },
    value: () => ['red', 'blue'],
  },
  date: {
    body: {
      type: 'date',
      options: { formatting: { date: 'YYYY-MM-DD', time: 'None', timeZone: 'UTC' } },
    },
    value: () => '2024-03-05T00:00:00.000Z',
  },
  user: { body: { type: 'user' }, value: (ctx) => ({ id: ctx.userId }) },
  autoNumber: { body: { type: 'autoNumber' } },
  createdTime: { body: { type: 'createdTime' } },
  lastModifiedTime: { body: { type: 'lastModifiedTime' } },
  createdBy: { body: { type: 'createdBy' } },
  lastModifiedBy: { body: { type: 'lastModifiedBy' } },
  formula: { body: { type: 'formula', options: { expression: '"f" & 1' } } },
  link: {
    body: { type: 'link', options: { relationship: 'manyMany' } },
    value: (ctx) => [{ id: ctx.otherIds[0] }],
  },
};

const NAMES = Object.keys(TYPES);
/** Attachments are converted to, not from (an upload is its own test): no text names a file. */
const TARGETS: Record<string, { body: Body }> = { ...TYPES, attachment: { body: { type: 'attachment' } } };
/** Types whose cells compute themselves: an empty cell becomes a value. */
const SELF_COMPUTED = new Set([
  'autoNumber',
  'createdTime',
  'lastModifiedTime',
  'createdBy',
  'lastModifiedBy',
  'formula',
]);

interface Ctx {
  userId: string;
  baseId: string;
  otherId: string;
  otherIds: string[];
}

/** The body of a field of `type` (a link to Other). */
const bodyOf = (type: string, ctx: Ctx, name: string): Body => {
  const { body } = TARGETS[type] as { body: Body };
  const options = body.options as Body | undefined;
  return {
    ...body,
    name,
    ...(type === 'link' ? { options: { ...options, foreignTableId: ctx.otherId } } : {}),
  };
};

/** An expected empty cell (undefined marks a pair without an expectation). */
const NOTHING = Symbol('nothing');

/**
 * The representative record's value after each conversion whose outcome Teable's converting
 * service defines plainly: the old cell's text typecast into the new type, except that values of
 * the same kind are kept as stored (a number stays 7.25 whatever its new precision, a created time
 * keeps its instant), select names take line breaks as Teable does, and computed types compute.
 */
const expectedValues = (ctx: Ctx, r1: { createdTime: string }): Record<string, Record<string, unknown>> => {
  const me = expect.objectContaining({ id: ctx.userId, title: 'Matrix' });
  const computed = {
    attachment: NOTHING,
    autoNumber: 1,
    createdTime: r1.createdTime,
    createdBy: me,
    lastModifiedBy: me,
    formula: 'f1',
  };
  const linked = (title: string) => [{ id: expect.stringMatching(/^rec/), title }];
  return {
    singleLineText: {
      ...computed,
      longText: '7',
      number: 7,
      rating: 5,
      checkbox: true,
      singleSelect: '7',
      multipleSelect: ['7'],
      date: NOTHING,
      user: NOTHING,
      link: linked('7'),
    },
    longText: {
      ...computed,
      singleLineText: 'red blue',
      number: NOTHING,
      checkbox: true,
      singleSelect: 'red blue',
      multipleSelect: ['red', 'blue'],
    },
    number: {
      ...computed,
      singleLineText: '7.3',
      number: 7.25,
      rating: 5,
      checkbox: true,
      singleSelect: '7.3',
      link: NOTHING,
    },
    rating: { ...computed, singleLineText: '3', number: 3, rating: 3 },
    checkbox: { ...computed, singleLineText: 'true', number: NOTHING, checkbox: true },
    singleSelect: {
      ...computed,
      singleLineText: 'red',
      multipleSelect: ['red'],
      number: NOTHING,
      link: linked('red'),
    },
    multipleSelect: {
      ...computed,
      singleLineText: 'red, blue',
      singleSelect: 'red, blue',
      multipleSelect: ['red', 'blue'],
      link: linked('red'),
    },
    date: { ...computed, singleLineText: '2024-03-05', date: '2024-03-05T00:00:00.000Z' },
    user: { ...computed, singleLineText: 'Matrix', user: me },
    autoNumber: { ...computed, singleLineText: '1', number: 1, rating: 1 },
    createdTime: { date: r1.createdTime },
    lastModifiedTime: { date: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
    createdBy: { singleLineText: 'Matrix', user: me },
    lastModifiedBy: { singleLineText: 'Matrix', user: me },
    formula: { singleLineText: 'f1', number: 1 },
    link: {
      ...computed,
      singleLineText: 'red',
      singleSelect: 'red',
      multipleSelect: ['red'],
      link: linked('red'),
    },
  };
};

describe("conversion between every pair of field types, through Teable's client", () => {
  let ctx: Ctx;

  beforeAll(async () => {
    const user = await newUser({ name: 'Matrix' });
    configApi({ token: user.token, endpoint: api.base.replace(/\/api$/, '') });
    const space = await createSpace({ name: 'Matrix' });
    const base = await createBase({ spaceId: space.data.id });
    const other = await createTable(base.data.id, {
      name: 'Other',
      fields: [{ type: 'singleLineText' as never, name: 'Name' }],
      records: [{ fields: { Name: 'red' } }, { fields: { Name: '7' } }],
    });
    ctx = {
      userId: user.id,
      baseId: base.data.id,
      otherId: other.data.id,
      otherIds: other.data.records.map((r) => r.id),
    };
  });

  it.each(NAMES)('converts a %s field to every type', async (from) => {
    const table = await createTable(ctx.baseId, {
      name: `From ${from}`,
      fields: [{ type: 'singleLineText' as never, name: 'Name' }],
      records: [{ fields: { Name: 'r1' } }, { fields: { Name: 'r2' } }],
    });
    const tableId = table.data.id;
    const [r1] = table.data.records.map((r) => r.id) as [string, string];
    const reader = await createTable(ctx.baseId, {
      name: `Reads ${from}`,
      fields: [{ type: 'singleLineText' as never, name: 'Name' }],
      records: [{ fields: { Name: 'x' } }],
    });
    const readerLink = await createField(reader.data.id, {
      type: 'link' as never,
      name: 'To',
      options: { relationship: 'manyMany', foreignTableId: tableId } as never,
    });
    await updateRecord(reader.data.id, reader.data.records[0]?.id as string, {
      record: { fields: { To: table.data.records.map((r) => ({ id: r.id })) } },
    });
    const failures: string[] = [];
    for (const to of Object.keys(TARGETS)) {
      const name = `${from} to ${to}`;
      const field = (await createField(tableId, bodyOf(from, ctx, name) as never)).data;
      const value = TYPES[from]?.value?.(ctx);
      if (value !== undefined)
        await updateRecord(tableId, r1, {
          record: { fields: { [field.id]: value } },
          fieldKeyType: 'id' as never,
        });
      const formula = (
        await createField(tableId, {
          type: 'formula' as never,
          name: `${name} (formula)`,
          options: { expression: `CONCATENATE({${field.id}}, "")` } as never,
        })
      ).data;
      const lookup = (
        await createField(reader.data.id, {
          type: field.type,
          isLookup: true,
          name: `${name} (lookup)`,
          lookupOptions: {
            foreignTableId: tableId,
            linkFieldId: readerLink.data.id,
            lookupFieldId: field.id,
          },
        } as never)
      ).data;

      const converted = await convertField(tableId, field.id, bodyOf(to, ctx, name) as never).catch(
        (error: { status?: number; message?: string }) => error,
      );

      if (!('data' in converted) || converted.data.type !== to) {
        failures.push(`${name}: ${JSON.stringify(converted).slice(0, 300)}`);
        continue;
      }
      const records = (await getRecords(tableId, { fieldKeyType: 'id' as never })).data.records;
      const empty = records[1]?.fields[field.id];
      // a computed source has a value in every record; a plain one left r2 empty
      const sourceEmpty = TYPES[from]?.value !== undefined;
      if (sourceEmpty && !SELF_COMPUTED.has(to) && empty !== undefined)
        failures.push(`${name}: the empty cell became ${JSON.stringify(empty)}`);
      if (SELF_COMPUTED.has(to) && to !== 'formula' && empty === undefined)
        failures.push(`${name}: no computed value`);
      const expected = expectedValues(ctx, records[0] as never)[from]?.[to];
      if (expected !== undefined)
        try {
          expect(records[0]?.fields[field.id]).toEqual(expected === NOTHING ? undefined : expected);
        } catch {
          failures.push(
            `${name}: ${JSON.stringify(records[0]?.fields[field.id])}, not ${JSON.stringify(expected)}`,
          );
        }
      const dependent = (await getField(tableId, formula.id)).data;
      if (dependent.hasError) failures.push(`${name}: the formula over it broke`);
      const lookedUp = (await getField(reader.data.id, lookup.id)).data;
      if (lookedUp.hasError) failures.push(`${name}: the lookup of it broke`);
      else if (lookedUp.type !== to) failures.push(`${name}: the lookup kept type ${lookedUp.type}`);
    }
    expect(failures).toEqual([]);
  });
});
