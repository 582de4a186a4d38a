/**
 * Field and view answers checked against Teable's own schemas (`fieldVoSchema` and
 * `viewVoSchema` of `@teable/core`, the package Teable's client is built on): every field type as
 * created, listed, read and converted, the table's fields as the table answers them, a link's
 * other side, lookups and rollups; every view type as created, read and listed.
 */
import { fieldVoSchema, viewVoSchema } from '@teable/core';
import {
  configApi,
  convertField,
  createBase,
  createField,
  createSpace,
  createTable,
  createView,
  getField,
  getFields,
  getView,
  getViewList,
} from '@teable/openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { newUser } from '#test/support/fixtures.ts';
import { useTestServer } from '#test/support/server.ts';

const api = useTestServer();

/** The issues Teable's schema finds in an answer, by path (none: it parses). */
const issuesOf = (
  schema: { safeParse: (v: unknown) => { success: boolean; error?: unknown } },
  value: unknown,
) => {
  const parsed = schema.safeParse(value);
  if (parsed.success) return [];
  const { issues } = parsed.error as { issues: { path: (string | number)[]; message: string }[] };
  return issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

const PLAIN_TYPES: Record<string, unknown>[] = [
  { type: 'singleLineText' },
  { type: 'longText' },
  { type: 'number' },
  { type: 'number', options: { formatting: { type: 'currency', precision: 1, symbol: '€' } } },
  { type: 'rating' },
  { type: 'checkbox' },
  { type: 'singleSelect', options: { choices: [{ name: 'a' }] } },
  { type: 'multipleSelect' },
  { type: 'date' },
  { type: 'user' },
  { type: 'user', options: { isMultiple: true } },
  { type: 'attachment' },
  { type: 'autoNumber' },
  { type: 'createdTime' },
  { type: 'lastModifiedTime' },
  { type: 'createdBy' },
  { type: 'lastModifiedBy' },
  { type: 'formula', options: { expression: '1 + 1' } },
];

describe("answers as Teable's own schemas define them", () => {
  let baseId: string;

  beforeAll(async () => {
    const user = await newUser({ name: 'Shapes' });
    configApi({ token: user.token, endpoint: api.base.replace(/\/api$/, '') });
    const space = await createSpace({ name: 'Shapes' });
    baseId = (await createBase({ spaceId: space.data.id })).data.id;
  });

  it('every field, as created, read, listed, converted and in the table, is a fieldVo', async () => {
    const table = await createTable(baseId, {
      name: 'Fields',
      fields: PLAIN_TYPES.filter((f) => f.type !== 'autoNumber').map((f, i) => ({
        ...f,
        name: `F${i}`,
      })) as never,
      records: [{ fields: {} }],
    });
    const tableId = table.data.id;
    const other = await createTable(baseId, { name: 'Other', records: [{ fields: {} }] });
    const problems: string[] = [];
    const check = (what: string, value: unknown) => {
      for (const issue of issuesOf(fieldVoSchema, value)) problems.push(`${what}: ${issue}`);
    };
    for (const body of PLAIN_TYPES) {
      const created = await createField(tableId, body as never);
      check(`create ${JSON.stringify(body)}`, created.data);
      check(`get ${body.type}`, (await getField(tableId, created.data.id)).data);
    }
    const link = await createField(tableId, {
      type: 'link',
      options: { relationship: 'manyMany', foreignTableId: other.data.id },
    } as never);
    check('create link', link.data);
    const lookup = await createField(tableId, {
      type: 'singleLineText',
      isLookup: true,
      lookupOptions: {
        foreignTableId: other.data.id,
        linkFieldId: link.data.id,
        lookupFieldId: other.data.fields[0]?.id,
      },
    } as never);
    check('create lookup', lookup.data);
    const rollup = await createField(tableId, {
      type: 'rollup',
      options: { expression: 'countall({values})' },
      lookupOptions: {
        foreignTableId: other.data.id,
        linkFieldId: link.data.id,
        lookupFieldId: other.data.fields[0]?.id,
      },
    } as never);
    check('create rollup', rollup.data);
    const converted = await convertField(
      tableId,
      (await getFields(tableId)).data[1]?.id as string,
      {
        type: 'number',
      } as never,
    );
    check('convert', converted.data);
    for (const field of (await getFields(tableId)).data) check(`list ${field.type}`, field);
    for (const field of (await getFields(other.data.id)).data) check(`other side ${field.type}`, field);
    for (const field of table.data.fields) check(`table ${field.type}`, field);

    expect(problems).toEqual([]);
  });

  it('every view, as created, read and listed, is a viewVo', async () => {
    const table = await createTable(baseId, { name: 'Views' });
    const tableId = table.data.id;
    const problems: string[] = [];
    const check = (what: string, value: unknown) => {
      for (const issue of issuesOf(viewVoSchema, value)) problems.push(`${what}: ${issue}`);
    };
    for (const type of ['grid', 'kanban', 'gallery', 'calendar', 'form']) {
      const created = await createView(tableId, { type } as never);
      check(`create ${type}`, created.data);
      check(`get ${type}`, (await getView(tableId, created.data.id)).data);
    }
    const form = await createView(tableId, {
      type: 'form',
      options: { coverUrl: 'https://example.test/c.png', logoUrl: 'https://example.test/l.png' },
    } as never);
    check('form with cover', form.data);
    for (const view of (await getViewList(tableId)).data) check(`list ${view.type}`, view);

    expect(problems).toEqual([]);
  });
});
