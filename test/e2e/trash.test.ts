import { describe, expect, it } from 'vitest';
import { drainPurges } from '#shared/jobs/purge-queue.ts';
import { newUser } from '#test/support/fixtures.ts';
import { itemsMentioning } from '#test/support/scan.ts';
import { newBaseOverHttp, useTestServer } from '#test/support/server.ts';

const api = useTestServer();

describe('the trash over HTTP', () => {
  it('trashes a table, lists it, restores it, trashes it again and deletes it for good from the trash', async () => {
    const alice = await newUser({ name: 'Alice' });
    const token = alice.auth;
    const baseId = await newBaseOverHttp(api, token, 'Trash');
    const table = await api.request('POST', `/base/${baseId}/table`, {
      token,
      body: { name: 'Old', records: [{ fields: { Name: 'a' } }, { fields: { Name: 'b' } }] },
    });
    expect(table.status).toBe(201);
    const tableId = table.body.id as string;
    const recordId = table.body.records[0].id as string;

    expect((await api.request('DELETE', `/base/${baseId}/table/${tableId}`, { token })).status).toBe(200);
    expect((await api.request('GET', `/table/${tableId}/record/${recordId}`, { token })).status).toBe(404);
    const listed = await api.request('GET', `/trash/items?resourceType=base&resourceId=${baseId}`, { token });
    expect(listed).toMatchObject({
      status: 200,
      body: {
        trashItems: [{ resourceId: tableId, resourceType: 'table', deletedBy: alice.id }],
        nextCursor: null,
      },
    });
    const firstTrashId = listed.body.trashItems[0].id as string;

    const restored = await api.request('POST', `/trash/restore/${firstTrashId}`, { token });
    expect(restored.status).toBe(201);
    expect((await api.request('GET', `/table/${tableId}/record/${recordId}`, { token })).body.fields).toEqual(
      {
        Name: 'a',
      },
    );

    await api.request('DELETE', `/base/${baseId}/table/${tableId}`, { token });
    const again = await api.request('GET', `/trash/items?resourceType=base&resourceId=${baseId}`, { token });
    const trashId = again.body.trashItems[0].id as string;
    expect(trashId).not.toBe(firstTrashId);

    const deleted = await api.request('DELETE', `/trash/${trashId}`, { token });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toBeUndefined();
    const gone = await api.request('DELETE', `/trash/${trashId}`, { token });
    expect(gone).toMatchObject({
      status: 404,
      body: { code: 'not_found', message: `Trash item ${trashId} not found` },
    });
    expect((await api.request('GET', `/base/${baseId}/table`, { token })).body).toEqual([]);
    await drainPurges();
    expect(await itemsMentioning(tableId, trashId, recordId)).toEqual([]);
    // the caller reads that the background purge is done
    expect(await api.request('GET', `/job/table/${tableId}`, { token })).toMatchObject({
      status: 200,
      body: { kind: 'table', resourceId: tableId, state: 'done', runs: 1, finishedTime: expect.any(String) },
    });
  });

  it('refuses a stranger (403), an unknown trash id (404) and a bad resourceType (400)', async () => {
    const [alice, eve] = [await newUser(), await newUser()];
    const space = await api.request('POST', '/space', { token: alice.auth, body: {} });
    await api.request('DELETE', `/space/${space.body.id}`, { token: alice.auth });
    const trash = await api.request('GET', '/trash?resourceType=space', { token: alice.auth });
    const trashId = trash.body.trashItems[0].id as string;

    expect(await api.request('DELETE', `/trash/${trashId}`, { token: eve.auth })).toMatchObject({
      status: 403,
      body: { code: 'restricted_resource' },
    });
    expect((await api.request('DELETE', '/trash/trs0000000000000000', { token: alice.auth })).status).toBe(
      404,
    );
    expect((await api.request('GET', '/trash?resourceType=table', { token: alice.auth })).status).toBe(400);
    expect((await api.request('DELETE', `/trash/${trashId}`, { token: alice.auth })).status).toBe(200);
    await drainPurges();
    expect(await itemsMentioning(space.body.id, trashId)).toEqual([]);
  });
});
