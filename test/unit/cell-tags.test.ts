import { describe, expect, it } from 'vitest';
import type { RecordItem } from '#shared/entities/records.ts';
import type { Field } from '#shared/fields/field-types.ts';
import { cellTagNotifications, cellTagSteps, userIdsOf } from '#shared/records/cell-tags.ts';
import type { TableSchema } from '#shared/schema/schema.ts';

const field = (
  id: string,
  name: string,
  type: Field['type'],
  options: Record<string, unknown> = {},
): Field => ({
  id,
  name,
  type,
  options,
  dbFieldName: name,
  cellValueType: 'string',
});
const name = { ...field('fldName', 'Name', 'singleLineText'), isPrimary: true };
const owner = field('fldOwner', 'Owner', 'user', { shouldNotify: true });
const team = field('fldTeam', 'Team', 'user', { shouldNotify: true, isMultiple: true });
const quiet = field('fldQuiet', 'Quiet', 'user', { isMultiple: true });
const schema = {
  table: { id: 'tblT', name: 'Tasks' },
  fields: [name, owner, team, quiet],
  views: [],
  version: 1,
  fieldOrder: {},
} as unknown as TableSchema;
const u = (id: string) => ({ id, title: id, email: `${id}@x.test` });
const rec = (id: string, cells: Record<string, unknown> = {}) =>
  ({ id, fldName: id.toUpperCase(), ...cells }) as unknown as RecordItem;
const input = (records: { item: RecordItem; before?: RecordItem; cells: Map<string, unknown> }[]) => ({
  schema,
  fields: schema.fields,
  baseId: 'bseB',
  writer: { userId: 'usrW', userName: 'Wendy' },
  records,
});

describe('cell-tag notifications', () => {
  it('reads the users of single and multiple cells', () => {
    expect(userIdsOf(u('a'))).toEqual(['a']);
    expect(userIdsOf([u('a'), u('b')])).toEqual(['a', 'b']);
    expect(userIdsOf(undefined)).toEqual([]);
  });

  it('notifies users newly in a notifying cell, not the writer, not quiet fields', () => {
    const before = rec('r1', { fldTeam: [u('a')] });
    const cells = new Map<string, unknown>([
      ['fldTeam', [u('a'), u('b'), u('usrW')]],
      ['fldQuiet', [u('c')]],
      ['fldOwner', u('b')],
    ]);
    const out = cellTagNotifications(
      input([{ item: { ...before, ...Object.fromEntries(cells) }, before, cells }]),
    );
    expect(out).toEqual([
      {
        userId: 'b',
        notifyType: 'collaboratorCellTag',
        message: 'Wendy added you to "Owner", "Team" in the record "R1" of the table "Tasks"',
        url: '/base/bseB/tblT?recordId=r1',
        from: { userId: 'usrW', userName: 'Wendy' },
      },
    ]);
  });

  it('makes one multi-row notification per user for several records, and steps that undo themselves', () => {
    const writes = ['r1', 'r2', 'r3'].map((id) => ({
      item: rec(id),
      cells: new Map<string, unknown>([['fldOwner', u('a')]]),
    }));
    const [n] = cellTagNotifications(input(writes));
    expect(n).toMatchObject({ userId: 'a', notifyType: 'collaboratorMultiRowTag', url: '/base/bseB/tblT' });
    expect(n?.message).toBe('Wendy added you to "Owner" in 3 records of the table "Tasks"');
    const steps = cellTagSteps(input(writes), new Date());
    expect(steps).toHaveLength(2);
    const [put, counter] = steps;
    expect(put?.undo).toEqual({ delete: { pk: 'USER#a', sk: expect.stringMatching(/^NOTIF#U#not/) } });
    expect(counter?.undo).toMatchObject({ update: { values: { ':d': -1 } } });
  });
});
