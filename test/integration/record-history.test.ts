import { describe, expect, it } from 'vitest';
import { invalid } from '#test/support/answers.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';
import { deleteRecord, updateRecord } from '#test/support/records.ts';
import { useStreamPoller } from '#test/support/stream-poller.ts';
import { newMember, newTable } from '#test/support/workspace.ts';

/**
 * Issue 28: Teable's record history routes (data-flow.md 2), fed by the stream processor over
 * DynamoDB Local's real stream.
 */

const stream = useStreamPoller();

const setUp = async () => {
  const t = await newTable({
    fields: [
      { name: 'Name', type: 'singleLineText' },
      { name: 'Count', type: 'number' },
      { name: 'Twice', type: 'formula', options: { expression: '1' } },
    ],
    records: [{ fields: { Name: 'Bolt', Count: 1 } }, { fields: { Name: 'Nut', Count: 5 } }],
  });
  const [name, count] = (t.table.fields as { id: string }[]).map((f) => f.id) as [string, string];
  const [bolt, nut] = (t.table.records as { id: string }[]).map((r) => r.id) as [string, string];
  return { t, name, count, bolt, nut };
};

const history = (
  t: Awaited<ReturnType<typeof newTable>>,
  recordId?: string,
  query = '',
  token = t.owner.auth,
) =>
  recordId === undefined
    ? call('list-record-history', { token, params: { tableId: t.tableId }, query })
    : call('get-record-history', { token, params: { tableId: t.tableId, recordId }, query });

describe("Teable's record history", () => {
  it("a record's history: one item per field a caller changed, newest first, with the field and the editor", async () => {
    const { t, name, count, bolt } = await setUp();
    await updateRecord(t, bolt, { record: { fields: { Count: 2 } } });
    await updateRecord(t, bolt, { record: { fields: { Name: 'Bolt M4', Count: 3 } } });
    await stream.caughtUp();

    const res = await history(t, bolt);

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const list = res.body.historyList as {
      fieldId: string;
      before: { data: unknown };
      after: { data: unknown };
    }[];
    expect(list.map((h) => [h.fieldId, h.before.data, h.after.data])).toEqual(
      expect.arrayContaining([
        [name, 'Bolt', 'Bolt M4'],
        [count, 2, 3],
        [count, 1, 2],
      ]),
    );
    expect(list).toHaveLength(3);
    expect(list.at(-1)).toEqual({
      id: expect.stringMatching(/^evt/),
      tableId: t.tableId,
      recordId: bolt,
      fieldId: count,
      before: {
        meta: { name: 'Count', type: 'number', cellValueType: 'number', options: expect.any(Object) },
        data: 1,
      },
      after: {
        meta: { name: 'Count', type: 'number', cellValueType: 'number', options: expect.any(Object) },
        data: 2,
      },
      createdTime: expect.any(String),
      createdBy: t.owner.id,
    });
    expect(res.body.userMap).toEqual({
      [t.owner.id]: { id: t.owner.id, name: expect.any(String), email: t.owner.email, avatar: null },
    });
    expect(res.body.nextCursor).toBeNull();
  });

  it("the table's history holds every record's; creates and computed changes are not in it", async () => {
    const { t, bolt, nut } = await setUp();
    await updateRecord(t, bolt, { record: { fields: { Count: 7 } } });
    await updateRecord(t, nut, { record: { fields: { Count: 8 } } });
    await stream.caughtUp();

    const res = await history(t);

    expect(res.body.historyList.map((h: { recordId: string }) => h.recordId).sort()).toEqual(
      [bolt, nut].sort(),
    );
  });

  it('pages of 20 with a cursor, and a date range', async () => {
    const { t, bolt } = await setUp();
    for (let i = 0; i < 23; i++) await updateRecord(t, bolt, { record: { fields: { Count: 100 + i } } });
    await stream.caughtUp();

    const first = await history(t, bolt);
    const second = await history(t, bolt, `cursor=${encodeURIComponent(first.body.nextCursor)}`);
    const none = await history(t, bolt, 'endDate=2000-01-01T00:00:00.000Z');
    const later = await history(t, bolt, `startDate=${new Date(Date.now() + 3_600_000).toISOString()}`);

    expect(first.body.historyList).toHaveLength(20);
    expect(second.body.historyList).toHaveLength(3);
    expect(second.body.nextCursor).toBeNull();
    const data = [...first.body.historyList, ...second.body.historyList].map(
      (h: { after: { data: number } }) => h.after.data,
    );
    expect(data).toEqual(Array.from({ length: 23 }, (_, i) => 122 - i));
    expect(none.body.historyList).toEqual([]);
    expect(later.body.historyList).toEqual([]);
  });

  it("a deleted record's history stays readable", async () => {
    const { t, bolt } = await setUp();
    await updateRecord(t, bolt, { record: { fields: { Count: 9 } } });
    await deleteRecord(t, bolt);
    await stream.caughtUp();

    const res = await history(t, bolt);

    expect(res.body.historyList).toHaveLength(1);
  });

  it('needs record|read: a viewer reads it, a stranger does not; bad input is a 400', async () => {
    const { t, bolt } = await setUp();
    const viewer = await newMember(t, 'viewer');
    const stranger = await newUser();

    expect((await history(t, bolt, '', viewer.auth)).status).toBe(200);
    expect((await history(t, bolt, '', stranger.auth)).status).toBe(403);
    expect(await history(t, bolt, 'cursor=zzz')).toMatchObject(invalid(/^Invalid query\.cursor/));
    expect(await history(t, bolt, 'startDate=yesterday')).toMatchObject(
      invalid('Invalid query.startDate: not a date'),
    );
  });
});
