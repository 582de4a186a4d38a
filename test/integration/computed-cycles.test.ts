/**
 * Cycles through other tables (computed.md 6): a formula that would read itself through a
 * lookup in another table is a 400 naming the cycle, and nothing changes.
 */
import { describe, expect, it } from 'vitest';
import type { Field } from '#test/support/answers.ts';
import { call } from '#test/support/invoke.ts';
import { newTable } from '#test/support/workspace.ts';

describe('cross-table cycles', () => {
  it('refuses a formula that reads itself through a lookup of a lookup in another table', async () => {
    const a = await newTable({
      name: 'A',
      fields: [
        { type: 'singleLineText', name: 'Name' },
        { type: 'number', name: 'Num' },
      ],
      records: [{ fields: { Name: 'a1', Num: 1 } }],
    });
    const token = a.owner.auth;
    const b = await call('create-table', {
      token,
      params: { baseId: a.baseId },
      body: { name: 'B', records: [{ fields: { Name: 'b1' } }] },
    });
    expect(b.status).toBe(201);
    const field = async (tableId: string, body: Record<string, unknown>) => {
      const res = await call('create-field', { token, params: { tableId }, body });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body as Field & { options: { symmetricFieldId: string } };
    };
    const num = (a.table.fields as Field[]).find((f) => f.name === 'Num') as Field;
    const link = await field(a.tableId, {
      type: 'link',
      name: 'Bs',
      options: { relationship: 'manyMany', foreignTableId: b.body.id },
    });
    const f = await field(a.tableId, {
      type: 'formula',
      name: 'F',
      options: { expression: `{${num.id}} + 1` },
    });
    const inB = await field(b.body.id, {
      type: 'formula',
      isLookup: true,
      lookupOptions: {
        foreignTableId: a.tableId,
        linkFieldId: link.options.symmetricFieldId,
        lookupFieldId: f.id,
      },
    });
    const back = await field(a.tableId, {
      type: 'formula',
      isLookup: true,
      lookupOptions: { foreignTableId: b.body.id, linkFieldId: link.id, lookupFieldId: inB.id },
    });
    const res = await call('update-field', {
      token,
      params: { tableId: a.tableId, fieldId: f.id },
      body: { options: { expression: `SUM({${back.id}})` } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.message).toMatch(/^field reference has cycle: F → .* → F$/);
    const kept = await call('get-field', { token, params: { tableId: a.tableId, fieldId: f.id } });
    expect(kept.body.options.expression).toBe(`{${num.id}} + 1`);
  });
});
