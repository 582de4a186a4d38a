/**
 * Record history (issue 28) through Teable's own client (`@teable/openapi` 1.10.0): its
 * `getRecordHistory` and `getRecordListHistory`, pointed at the local server, with the stream
 * processor capturing DynamoDB Local's stream as `npm start` runs it.
 */
import {
  configApi,
  createBase,
  createSpace,
  createTable,
  getRecordHistory,
  getRecordListHistory,
  recordHistoryVoSchema,
  updateRecord,
} from '@teable/openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { newUser } from '#test/support/fixtures.ts';
import { useTestServer } from '#test/support/server.ts';
import { useStreamPoller } from '#test/support/stream-poller.ts';

const api = useTestServer();
const stream = useStreamPoller();

beforeAll(async () => {
  const user = await newUser({ name: 'Compat history' });
  configApi({ token: user.token, endpoint: api.base.replace(/\/api$/, '') });
});

describe("record history through Teable's client", () => {
  it('answers what recordHistoryVoSchema takes, for a record and for its table', async () => {
    const space = await createSpace({ name: 'History' });
    const base = await createBase({ spaceId: space.data.id });
    const table = await createTable(base.data.id, {
      fields: [{ name: 'Name', type: 'singleLineText' as never }],
      records: [{ fields: { Name: 'before' } }],
    });
    const recordId = table.data.records[0]?.id as string;
    await updateRecord(table.data.id, recordId, { record: { fields: { Name: 'after' } } });
    await stream.caughtUp();

    const one = await getRecordHistory(table.data.id, recordId, {});
    const all = await getRecordListHistory(table.data.id, {});

    expect(recordHistoryVoSchema.parse(one.data)).toEqual(one.data);
    expect(recordHistoryVoSchema.parse(all.data)).toEqual(all.data);
    expect(one.data.historyList.map((h) => [h.before.data, h.after.data, h.before.meta.name])).toEqual([
      ['before', 'after', 'Name'],
    ]);
    expect(all.data.historyList).toEqual(one.data.historyList);
  });
});
