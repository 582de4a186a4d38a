/**
 * Pins (the starred spaces and bases of Teable's sidebar) through Teable's own client
 * (`@teable/openapi` 1.10.0): `addPin` (it posts to `/api/pin/`, with the trailing slash),
 * `getPinList` read with the client's own `IGetPinListVoSchema` (1.10's name: it also wants each
 * pin's `name`), `updatePinOrder` and `deletePin` (its `type` and `id` sent as query parameters),
 * pointed at the local server.
 */
import {
  addPin,
  configApi,
  createBase,
  createSpace,
  deleteBase,
  deletePin,
  getPinList,
  IGetPinListVoSchema,
  PinType,
  updatePinOrder,
} from '@teable/openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { newUser } from '#test/support/fixtures.ts';
import { useTestServer } from '#test/support/server.ts';

const api = useTestServer();

beforeAll(async () => {
  const user = await newUser({ name: 'Compat pins' });
  configApi({ token: user.token, endpoint: api.base.replace(/\/api$/, '') });
});

describe("pins through Teable's client", () => {
  it('adds, lists, moves and removes pins as the client expects', async () => {
    const space = await createSpace({ name: 'Pinned team' });
    const first = await createBase({ spaceId: space.data.id, name: 'First', icon: '🚀' });
    const second = await createBase({ spaceId: space.data.id, name: 'Second' });

    const added = await addPin({ type: PinType.Base, id: first.data.id });
    await addPin({ type: PinType.Space, id: space.data.id });
    await addPin({ type: PinType.Base, id: second.data.id });
    await addPin({ type: PinType.Base, id: first.data.id });

    expect(added.status).toBe(201);
    const listed = await getPinList();
    expect(IGetPinListVoSchema.parse(listed.data)).toEqual(listed.data);
    expect(listed.data).toEqual([
      { id: first.data.id, type: 'base', order: 1, name: 'First', icon: '🚀' },
      { id: space.data.id, type: 'space', order: 2, name: 'Pinned team' },
      { id: second.data.id, type: 'base', order: 3, name: 'Second' },
    ]);

    const moved = await updatePinOrder({
      id: second.data.id,
      type: PinType.Base,
      anchorId: first.data.id,
      anchorType: PinType.Base,
      position: 'before',
    });
    expect(moved.status).toBe(200);
    expect((await getPinList()).data.map((p) => p.id)).toEqual([
      second.data.id,
      first.data.id,
      space.data.id,
    ]);

    const removed = await deletePin({ type: PinType.Space, id: space.data.id });
    expect(removed.status).toBe(200);
    expect((await getPinList()).data.map((p) => p.id)).toEqual([second.data.id, first.data.id]);

    await deleteBase(first.data.id);
    const afterDelete = await getPinList();
    expect(IGetPinListVoSchema.parse(afterDelete.data)).toEqual(afterDelete.data);
    expect(afterDelete.data.map((p) => p.id)).toEqual([second.data.id]);
  });

  it('refuses a space the caller is not in (403), an unpinned anchor (404) and an unknown type (400)', async () => {
    const stranger = await newUser();
    const theirs = await api.request('POST', '/space', { token: stranger.auth, body: { name: 'Theirs' } });
    const mine = await createSpace({ name: 'Mine' });

    await expect(addPin({ type: PinType.Space, id: theirs.body.id })).rejects.toMatchObject({ status: 403 });
    await addPin({ type: PinType.Space, id: mine.data.id });
    await expect(
      updatePinOrder({
        id: mine.data.id,
        type: PinType.Space,
        anchorId: theirs.body.id,
        anchorType: PinType.Space,
        position: 'after',
      }),
    ).rejects.toMatchObject({ status: 404, code: 'not_found' });
    await expect(addPin({ type: PinType.Table, id: 'tbl0000000000000000' })).rejects.toMatchObject({
      status: 400,
      code: 'validation_error',
    });
  });
});
