import type { Context, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { SCOPES } from '#shared/auth/scopes.ts';
import { getItems, transact } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { newId, nodeIdOf } from '#shared/ids.ts';
import { currentJobStatus } from '#shared/jobs/job-status.ts';
import { drainPurges, purgeJobOp } from '#shared/jobs/purge-queue.ts';
import { runPurgeJob, STALE_JOB_MS, sweepPurgeJobs } from '#shared/trash/job-runner.ts';
import { TRASH_PAGE_SIZE } from '#shared/trash/trash.ts';
import { createOperatorToken } from '#shared/users/access-tokens.ts';
import { forbidden, id, invalid, notFound } from '#test/support/answers.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';
import { itemsMentioning, scanTable } from '#test/support/scan.ts';
import { newMember, newWorkspace } from '#test/support/workspace.ts';

type Ws = Awaited<ReturnType<typeof newWorkspace>>;
type Item = Record<string, unknown>;

/**
 * Items that mention one of the ids anywhere (keys or attributes, e.g. a trash item's
 * `resourceId` or a purge job), except the cells other tables' records keep of a deleted link
 * field (cells of deleted fields stay in record items, never read again: README), and the record
 * of a finished job (kept a week on purpose, for `GET /job`).
 */
const leftovers = async (ids: string[], except: (item: Item) => boolean = () => false) =>
  (await scanTable()).filter(
    (item) =>
      !except(item) && item.type !== 'finishedJob' && ids.some((i) => JSON.stringify(item).includes(i)),
  );

const keyText = (i: Item) => `${String(i.pk)} ${String(i.sk)}`;

const createTable = async (ws: Ws, body: Record<string, unknown> = {}) => {
  const res = await call('create-table', { token: ws.owner.auth, params: { baseId: ws.baseId }, body });
  if (res.status !== 201) throw new Error(`create-table: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as {
    id: string;
    views: { id: string }[];
    fields: { id: string }[];
    records: { id: string }[];
  };
};

const trashTable = async (ws: Ws, tableId: string, token = ws.owner.auth) => {
  const res = await call('delete-table', { token, params: { baseId: ws.baseId, tableId } });
  if (res.status !== 200) throw new Error(`delete-table: ${res.status} ${JSON.stringify(res.body)}`);
};

const trashItems = (ws: Ws, baseId = ws.baseId, token = ws.owner.auth, cursor?: string) =>
  call('list-trash-items', {
    token,
    query: `resourceType=base&resourceId=${baseId}${cursor ? `&cursor=${cursor}` : ''}`,
  });

const trashIdOf = async (ws: Ws, resourceId: string): Promise<string> => {
  const res = await trashItems(ws);
  const found = res.body.trashItems.find((t: { resourceId: string }) => t.resourceId === resourceId);
  if (!found) throw new Error(`no trash item for ${resourceId}`);
  return found.id;
};

const trashList = (token: string, resourceType: string, cursor?: string) =>
  call('list-trash', { token, query: `resourceType=${resourceType}${cursor ? `&cursor=${cursor}` : ''}` });

describe('GET /trash/items (trashed tables of a base)', () => {
  it('lists a trashed table with its trash item, newest first', async () => {
    const ws = await newWorkspace();
    const [a, b, live] = [await createTable(ws), await createTable(ws), await createTable(ws)];
    await trashTable(ws, a.id);
    await trashTable(ws, b.id);

    const res = await trashItems(ws);

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      trashItems: [
        {
          id: id('trs'),
          resourceId: b.id,
          resourceType: 'table',
          deletedTime: expect.any(String),
          deletedBy: ws.owner.id,
        },
        {
          id: id('trs'),
          resourceId: a.id,
          resourceType: 'table',
          deletedTime: expect.any(String),
          deletedBy: ws.owner.id,
        },
      ],
      userMap: { [ws.owner.id]: expect.objectContaining({ id: ws.owner.id, avatar: null }) },
      resourceMap: expect.any(Object),
      nextCursor: null,
    });
    expect(Date.parse(res.body.trashItems[0].deletedTime)).toBeGreaterThan(Date.now() - 60_000);
    const tables = await call('list-tables', { token: ws.owner.auth, params: { baseId: ws.baseId } });
    expect(tables.body.map((t: { id: string }) => t.id)).toEqual([live.id]);
  });

  it('answers 403 naming table|delete to an editor, 403 to a stranger, 404 for an unknown or trashed base', async () => {
    const ws = await newWorkspace();
    const editor = await newMember(ws, 'editor');
    const stranger = await newUser();
    expect(await trashItems(ws, ws.baseId, editor.auth)).toMatchObject(
      forbidden(`not allowed to operate table|delete on ${ws.baseId}`),
    );
    expect(await trashItems(ws, ws.baseId, stranger.auth)).toMatchObject(
      forbidden(`not a collaborator of the space that holds ${ws.baseId}`),
    );
    const unknown = newId('base');
    expect(await trashItems(ws, unknown)).toMatchObject(notFound(`Base ${unknown} not found`));
    await call('delete-base', { token: ws.owner.auth, params: { baseId: ws.baseId } });
    expect(await trashItems(ws)).toMatchObject(notFound(`Base ${ws.baseId} not found`));
  });

  it('answers 400 for another resourceType, a missing or malformed resourceId, a bad cursor', async () => {
    const ws = await newWorkspace();
    const token = ws.owner.auth;
    for (const query of [
      `resourceType=space&resourceId=${ws.baseId}`,
      `resourceType=base`,
      `resourceType=base&resourceId=${ws.spaceId}`,
      `resourceId=${ws.baseId}`,
      `resourceType=base&resourceId=${ws.baseId}&cursor=nope`,
    ])
      expect(await call('list-trash-items', { token, query })).toMatchObject(invalid(/./));
  });
});

describe('GET /trash', () => {
  it('lists trashed spaces to their owners and trashed bases to those who may delete bases', async () => {
    const ws = await newWorkspace();
    const creator = await newMember(ws, 'creator');
    const editor = await newMember(ws, 'editor');
    const other = await call('create-base', { token: ws.owner.auth, body: { spaceId: ws.spaceId } });
    await call('delete-base', { token: ws.owner.auth, params: { baseId: other.body.id } });

    const forOwner = await trashList(ws.owner.auth, 'base');
    expect(forOwner.status).toBe(200);
    expect(forOwner.body).toEqual({
      trashItems: [
        {
          id: id('trs'),
          resourceId: other.body.id,
          resourceType: 'base',
          deletedTime: expect.any(String),
          deletedBy: ws.owner.id,
        },
      ],
      userMap: { [ws.owner.id]: expect.objectContaining({ id: ws.owner.id, avatar: null }) },
      resourceMap: expect.any(Object),
      nextCursor: null,
    });
    expect((await trashList(creator.auth, 'base')).body).toEqual(forOwner.body);
    expect((await trashList(editor.auth, 'base')).body).toEqual({
      trashItems: [],
      userMap: {},
      resourceMap: {},
      nextCursor: null,
    });
    expect((await trashList(ws.owner.auth, 'space')).body).toEqual({
      trashItems: [],
      userMap: {},
      resourceMap: {},
      nextCursor: null,
    });

    // the space in the trash: its bases leave the base list, the space shows to owners only
    await call('delete-space', { token: ws.owner.auth, params: { spaceId: ws.spaceId } });
    expect((await trashList(ws.owner.auth, 'base')).body).toEqual({
      trashItems: [],
      userMap: {},
      resourceMap: {},
      nextCursor: null,
    });
    expect((await trashList(ws.owner.auth, 'space')).body).toEqual({
      trashItems: [
        {
          id: id('trs'),
          resourceId: ws.spaceId,
          resourceType: 'space',
          deletedTime: expect.any(String),
          deletedBy: ws.owner.id,
        },
      ],
      userMap: { [ws.owner.id]: expect.objectContaining({ id: ws.owner.id, avatar: null }) },
      resourceMap: expect.any(Object),
      nextCursor: null,
    });
    expect((await trashList(creator.auth, 'space')).body).toEqual({
      trashItems: [],
      userMap: {},
      resourceMap: {},
      nextCursor: null,
    });
  });

  it(`pages by cursor, ${TRASH_PAGE_SIZE} a page, newest first, each item once`, async () => {
    const ws = await newWorkspace();
    const count = TRASH_PAGE_SIZE + 2;
    const bases = await Promise.all(
      Array.from({ length: count }, () =>
        call('create-base', { token: ws.owner.auth, body: { spaceId: ws.spaceId } }),
      ),
    );
    for (const b of bases) await call('delete-base', { token: ws.owner.auth, params: { baseId: b.body.id } });

    const first = await trashList(ws.owner.auth, 'base');
    expect(first.body.trashItems).toHaveLength(TRASH_PAGE_SIZE);
    expect(first.body.nextCursor).toBe(first.body.trashItems.at(-1).id);
    const second = await trashList(ws.owner.auth, 'base', first.body.nextCursor);
    expect(second.body.trashItems).toHaveLength(2);
    expect(second.body.nextCursor).toBeNull();
    const all = [...first.body.trashItems, ...second.body.trashItems].map((t) => t.resourceId);
    expect(all).toEqual(bases.map((b) => b.body.id).reverse());
  });

  it('answers 400 for a missing or unknown resourceType and a malformed cursor, 401 without a token', async () => {
    const user = await newUser();
    for (const query of ['', 'resourceType=table', 'resourceType=base&cursor=trs1'])
      expect(await call('list-trash', { token: user.auth, query })).toMatchObject(invalid(/./));
    expect((await call('list-trash', { query: 'resourceType=base' })).status).toBe(401);
  });
});

describe('POST /trash/restore/{trashId}', () => {
  it('restores a table: 201, reachable again, listed again, the trash item gone', async () => {
    const ws = await newWorkspace();
    const t = await createTable(ws, { name: 'Back', records: [{ fields: { Name: 'kept' } }] });
    await trashTable(ws, t.id);
    const trashId = await trashIdOf(ws, t.id);

    const res = await call('restore-trash-item', { token: ws.owner.auth, params: { trashId } });

    expect(res.status).toBe(201);
    expect(res.body).toBeUndefined();
    const record = await call('get-record', {
      token: ws.owner.auth,
      params: { tableId: t.id, recordId: t.records[0]?.id as string },
    });
    expect(record.body.fields).toEqual({ Name: 'kept' });
    expect((await trashItems(ws)).body).toEqual({
      trashItems: [],
      userMap: {},
      resourceMap: {},
      nextCursor: null,
    });
    expect(await itemsMentioning(trashId)).toEqual([]);
    const again = await call('restore-trash-item', { token: ws.owner.auth, params: { trashId } });
    expect(again).toMatchObject(notFound(`Trash item ${trashId} not found`));
    // trashed again: a new trash item
    await trashTable(ws, t.id);
    expect(await trashIdOf(ws, t.id)).not.toBe(trashId);
  });

  it('restores a base and a space', async () => {
    const ws = await newWorkspace();
    await call('delete-base', { token: ws.owner.auth, params: { baseId: ws.baseId } });
    const baseTrash = (await trashList(ws.owner.auth, 'base')).body.trashItems[0].id;
    expect(
      (await call('restore-trash-item', { token: ws.owner.auth, params: { trashId: baseTrash } })).status,
    ).toBe(201);
    expect((await call('get-base', { token: ws.owner.auth, params: { baseId: ws.baseId } })).status).toBe(
      200,
    );

    await call('delete-space', { token: ws.owner.auth, params: { spaceId: ws.spaceId } });
    const spaceTrash = (await trashList(ws.owner.auth, 'space')).body.trashItems[0].id;
    expect(
      (await call('restore-trash-item', { token: ws.owner.auth, params: { trashId: spaceTrash } })).status,
    ).toBe(201);
    expect((await call('get-space', { token: ws.owner.auth, params: { spaceId: ws.spaceId } })).status).toBe(
      200,
    );
    expect(
      (await call('list-spaces', { token: ws.owner.auth })).body.map((s: { id: string }) => s.id),
    ).toEqual([ws.spaceId]);
    expect((await trashList(ws.owner.auth, 'space')).body.trashItems).toEqual([]);
  });

  it('answers 403 for a base inside a trashed space and a table inside a trashed base; the parent first works', async () => {
    const ws = await newWorkspace();
    const t = await createTable(ws);
    await trashTable(ws, t.id);
    const tableTrash = await trashIdOf(ws, t.id);
    await call('delete-base', { token: ws.owner.auth, params: { baseId: ws.baseId } });
    const baseTrash = (await trashList(ws.owner.auth, 'base')).body.trashItems[0].id;
    await call('delete-space', { token: ws.owner.auth, params: { spaceId: ws.spaceId } });
    const spaceTrash = (await trashList(ws.owner.auth, 'space')).body.trashItems[0].id;
    const restore = (trashId: string) =>
      call('restore-trash-item', { token: ws.owner.auth, params: { trashId } });

    expect(await restore(baseTrash)).toMatchObject(
      forbidden(`Base ${ws.baseId} is in a space in the trash; restore the space first`),
    );
    expect(await restore(tableTrash)).toMatchObject(
      forbidden(`Table ${t.id} is in a space in the trash; restore the space first`),
    );
    expect((await restore(spaceTrash)).status).toBe(201);
    expect(await restore(tableTrash)).toMatchObject(
      forbidden(`Table ${t.id} is in a base in the trash; restore the base first`),
    );
    expect((await restore(baseTrash)).status).toBe(201);
    expect((await restore(tableTrash)).status).toBe(201);
    expect(
      (await call('get-table', { token: ws.owner.auth, params: { baseId: ws.baseId, tableId: t.id } }))
        .status,
    ).toBe(200);
  });

  it('needs the delete right on the resource: 403 to an editor (table) and a creator (space), 403 to a stranger', async () => {
    const ws = await newWorkspace();
    const editor = await newMember(ws, 'editor');
    const creator = await newMember(ws, 'creator');
    const stranger = await newUser();
    const t = await createTable(ws);
    await trashTable(ws, t.id);
    const tableTrash = await trashIdOf(ws, t.id);

    expect(
      await call('restore-trash-item', { token: editor.auth, params: { trashId: tableTrash } }),
    ).toMatchObject(forbidden(`not allowed to operate table|delete on ${t.id}`));
    expect(
      await call('restore-trash-item', { token: stranger.auth, params: { trashId: tableTrash } }),
    ).toMatchObject(forbidden(`not a collaborator of the space that holds ${t.id}`));
    expect(
      (await call('restore-trash-item', { token: creator.auth, params: { trashId: tableTrash } })).status,
    ).toBe(201);

    await call('delete-space', { token: ws.owner.auth, params: { spaceId: ws.spaceId } });
    const spaceTrash = (await trashList(ws.owner.auth, 'space')).body.trashItems[0].id;
    expect(
      await call('restore-trash-item', { token: creator.auth, params: { trashId: spaceTrash } }),
    ).toMatchObject(forbidden(`not allowed to operate space|delete on ${ws.spaceId}`));
    expect(
      await call('delete-trash-item', { token: creator.auth, params: { trashId: spaceTrash } }),
    ).toMatchObject(forbidden(`not allowed to operate space|delete on ${ws.spaceId}`));
    expect((await call('get-space', { token: ws.owner.auth, params: { spaceId: ws.spaceId } })).status).toBe(
      404,
    );
  });

  it('needs the delete scope in the token too, and a token limited to another space sees nothing', async () => {
    const ws = await newWorkspace();
    const other = await newWorkspace();
    const t = await createTable(ws);
    await trashTable(ws, t.id);
    await call('delete-base', { token: ws.owner.auth, params: { baseId: ws.baseId } });
    const trashId = (await trashList(ws.owner.auth, 'base')).body.trashItems[0].id;
    const expiredTime = new Date(Date.now() + 86_400_000).toISOString();
    const narrow = await createOperatorToken(ws.owner.id, {
      name: 'no base|delete',
      scopes: SCOPES.filter((s) => s !== 'base|delete'),
      expiredTime,
    });
    const elsewhere = await createOperatorToken(ws.owner.id, {
      name: 'other space',
      scopes: [...SCOPES],
      spaceIds: [other.spaceId],
      expiredTime,
    });

    expect(
      await call('restore-trash-item', { token: `Bearer ${narrow.token}`, params: { trashId } }),
    ).toMatchObject(forbidden(`not allowed to operate base|delete on ${ws.baseId}`));
    expect((await trashList(`Bearer ${narrow.token}`, 'base')).body.trashItems).toEqual([]);
    expect(
      await call('delete-trash-item', { token: `Bearer ${elsewhere.token}`, params: { trashId } }),
    ).toMatchObject(forbidden(`this token is limited to other spaces or bases than ${ws.baseId}`));
    expect((await trashList(`Bearer ${elsewhere.token}`, 'base')).body.trashItems).toEqual([]);
    expect((await trashList(ws.owner.auth, 'base')).body.trashItems).toHaveLength(1);
  });

  it('answers 404 for an unknown trash id and 400 for a malformed one', async () => {
    const user = await newUser();
    const unknown = newId('trash');
    for (const handler of ['restore-trash-item', 'delete-trash-item'] as const) {
      expect(await call(handler, { token: user.auth, params: { trashId: unknown } })).toMatchObject(
        notFound(`Trash item ${unknown} not found`),
      );
      expect(
        await call(handler, { token: user.auth, params: { trashId: 'tbl0000000000000000' } }),
      ).toMatchObject(invalid(/trashId/));
    }
  });
});

describe('DELETE /trash/{trashId} (delete a trashed resource for good) and the permanent deletes', () => {
  it('deletes a trashed table for good: 200 empty body, 404 at once, nothing of it left, nothing else touched', async () => {
    const ws = await newWorkspace();
    const sibling = await createTable(ws, { name: 'Sibling', records: [{ fields: { Name: 's' } }] });
    const doomed = await createTable(ws, {
      name: 'Doomed',
      fields: [
        { type: 'singleLineText', name: 'Name' },
        { type: 'singleLineText', name: 'Code', unique: true },
      ],
      views: [
        { type: 'grid', name: 'One' },
        { type: 'grid', name: 'Two' },
      ],
      records: [{ fields: { Name: 'a', Code: 'A' } }, { fields: { Name: 'b', Code: 'B' } }],
    });
    const token = ws.owner.auth;
    const link = await call('create-field', {
      token,
      params: { tableId: doomed.id },
      body: { type: 'link', name: 'Sib', options: { relationship: 'manyMany', foreignTableId: sibling.id } },
    });
    expect(link.status).toBe(201);
    const symmetricFieldId = link.body.options.symmetricFieldId as string;
    const [r1, r2] = doomed.records.map((r) => r.id) as [string, string];
    expect(
      (
        await call('update-record', {
          token,
          params: { tableId: doomed.id, recordId: r1 },
          body: { record: { fields: { Sib: [{ id: sibling.records[0]?.id }] } } },
        })
      ).status,
    ).toBe(200);
    // the second view sorted (so the writes below keep an index of it), a manual order in it,
    // and remembered idempotent answers
    const nameId = (doomed.fields as { id: string; name: string }[]).find((f) => f.name === 'Name')?.id;
    expect(
      (
        await call('update-view-sort', {
          token,
          params: { tableId: doomed.id, viewId: doomed.views[1]?.id as string },
          body: { sort: { sortObjs: [{ fieldId: nameId, order: 'desc' }] } },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call('update-record-order', {
          token,
          params: { tableId: doomed.id, viewId: doomed.views[1]?.id as string },
          body: { anchorId: r1, position: 'before', recordIds: [r2] },
        })
      ).status,
    ).toBe(200);
    const created = await call('create-records', {
      token,
      params: { tableId: doomed.id },
      body: { records: [{ fields: { Name: 'c', Code: 'C' } }] },
      headers: { 'idempotency-key': 'trash-k1' },
    });
    expect(created.status).toBe(201);
    const ids = [doomed.id, ...doomed.views.map((v) => v.id), r1, r2, created.body.records[0].id];
    const before = (await itemsMentioning(...ids)).map(keyText);
    for (const pk of [
      `IDEM#${doomed.id} ${ws.owner.id}#create-records#trash-k1`,
      `UNIQ#${doomed.id} `,
      `VORDER#${doomed.views[1]?.id} `,
      `VIDX#${doomed.views[1]?.id} `,
      `RECNUM#${doomed.id} `,
      `RECORDS#${doomed.id} `,
    ])
      expect(before.some((k) => k.startsWith(pk))).toBe(true);
    const siblingBefore = (await itemsMentioning(sibling.id, ...sibling.views.map((v) => v.id))).map(keyText);

    await trashTable(ws, doomed.id);
    const trashId = await trashIdOf(ws, doomed.id);
    const res = await call('delete-trash-item', { token, params: { trashId } });
    expect(res).toEqual({ status: 200, headers: expect.any(Object), body: undefined });
    // invisible at once, also to the permanent route, before the purge ran
    expect(await call('delete-trash-item', { token, params: { trashId } })).toMatchObject(
      notFound(`Trash item ${trashId} not found`),
    );
    expect(
      await call('delete-table-permanently', { token, params: { baseId: ws.baseId, tableId: doomed.id } }),
    ).toMatchObject(notFound(`Table ${doomed.id} not found`));
    expect((await trashItems(ws)).body.trashItems).toEqual([]);
    await drainPurges();

    const siblingRecordsOf = (i: Item) => String(i.pk) === `RECORDS#${sibling.id}`;
    expect(await leftovers([...ids, trashId], siblingRecordsOf)).toEqual([]);
    // the sibling lost only the other side of the link, and keeps working
    const siblingAfter = (await itemsMentioning(sibling.id, ...sibling.views.map((v) => v.id))).map(keyText);
    expect(siblingBefore.filter((k) => !siblingAfter.includes(k))).toEqual([
      `TABLE#${sibling.id} FIELD#${symmetricFieldId}`,
    ]);
    expect(siblingAfter.filter((k) => !siblingBefore.includes(k))).toEqual([]);
    const rec = await call('get-record', {
      token,
      params: { tableId: sibling.id, recordId: sibling.records[0]?.id as string },
    });
    expect(rec).toMatchObject({ status: 200, body: { fields: { Name: 's' } } });
    expect(
      (
        await call('create-records', {
          token,
          params: { tableId: sibling.id },
          body: { records: [{ fields: {} }] },
        })
      ).status,
    ).toBe(201);
  });

  it('deletes a trashed base and a trashed space with their tables for good, leaving other spaces alone', async () => {
    const ws = await newWorkspace();
    const keep = await newWorkspace();
    const kept = await createTable(keep, { records: [{ fields: { Name: 'k' } }] });
    const t1 = await createTable(ws, { records: [{ fields: { Name: 'x' } }, { fields: { Name: 'y' } }] });
    const t2 = await createTable(ws);
    await trashTable(ws, t2.id); // a trashed table inside the base: its trash item goes too
    const t2Trash = await trashIdOf(ws, t2.id);
    const keptBefore = (
      await itemsMentioning(keep.spaceId, keep.baseId, kept.id, kept.views[0]?.id as string)
    ).map(keyText);
    await call('delete-base', { token: ws.owner.auth, params: { baseId: ws.baseId } });
    const baseTrash = (await trashList(ws.owner.auth, 'base')).body.trashItems[0].id;

    expect(
      (await call('delete-trash-item', { token: ws.owner.auth, params: { trashId: baseTrash } })).status,
    ).toBe(200);
    expect((await trashList(ws.owner.auth, 'base')).body.trashItems).toEqual([]);
    await drainPurges();
    const baseIds = [
      ws.baseId,
      t1.id,
      t2.id,
      t2Trash,
      baseTrash,
      ...t1.views.map((v) => v.id),
      ...t1.records.map((r) => r.id),
    ];
    expect(await leftovers(baseIds)).toEqual([]);

    // a space with members and a second base
    await newMember(ws, 'editor');
    const b2 = await call('create-base', { token: ws.owner.auth, body: { spaceId: ws.spaceId } });
    const t3 = await call('create-table', { token: ws.owner.auth, params: { baseId: b2.body.id }, body: {} });
    await call('delete-space', { token: ws.owner.auth, params: { spaceId: ws.spaceId } });
    const spaceTrash = (await trashList(ws.owner.auth, 'space')).body.trashItems[0].id;
    expect(
      (await call('delete-trash-item', { token: ws.owner.auth, params: { trashId: spaceTrash } })).status,
    ).toBe(200);
    expect((await trashList(ws.owner.auth, 'space')).body.trashItems).toEqual([]);
    await drainPurges();
    // the members' notifications ("added you to the space …") are theirs and stay
    const notification = (i: Item) => i.type === 'notification';
    expect(await leftovers([ws.spaceId, b2.body.id, t3.body.id, spaceTrash], notification)).toEqual([]);

    const keptAfter = (
      await itemsMentioning(keep.spaceId, keep.baseId, kept.id, kept.views[0]?.id as string)
    ).map(keyText);
    expect(keptAfter.sort()).toEqual(keptBefore.sort());
  });

  it('removes the table of a project node with it', async () => {
    const ws = await newWorkspace();
    const t = await createTable(ws);
    // what D's node routes write for a table (the node id derives from the table id)
    const node = keys.node(ws.baseId, nodeIdOf(t.id));
    await transact(
      [{ put: { ...node, type: 'node', resourceType: 'table', resourceId: t.id } }],
      () => new Error('x') as never,
    );
    await call('delete-table-permanently', {
      token: ws.owner.auth,
      params: { baseId: ws.baseId, tableId: t.id },
    });
    expect((await getItems([node])).get(node)).toBeUndefined();
    await drainPurges();
    expect(await leftovers([t.id, nodeIdOf(t.id)])).toEqual([]);
  });
});

describe('DELETE /trash/reset-items', () => {
  it('deletes every trashed table of the base for good and leaves the live one', async () => {
    const ws = await newWorkspace();
    const [a, b, live] = [
      await createTable(ws, { records: [{ fields: { Name: 'a' } }] }),
      await createTable(ws),
      await createTable(ws, { records: [{ fields: { Name: 'l' } }] }),
    ];
    await trashTable(ws, a.id);
    await trashTable(ws, b.id);
    const liveBefore = (await itemsMentioning(live.id, live.views[0]?.id as string)).map(keyText);

    const res = await call('reset-trash-items', {
      token: ws.owner.auth,
      query: `resourceType=base&resourceId=${ws.baseId}`,
    });
    expect(res).toMatchObject({ status: 200, body: undefined });
    expect((await trashItems(ws)).body).toEqual({
      trashItems: [],
      userMap: {},
      resourceMap: {},
      nextCursor: null,
    });
    await drainPurges();
    expect(await leftovers([a.id, b.id, ...a.records.map((r) => r.id)])).toEqual([]);
    expect((await itemsMentioning(live.id, live.views[0]?.id as string)).map(keyText)).toEqual(liveBefore);
    // an empty trash: nothing to do
    expect(
      (
        await call('reset-trash-items', {
          token: ws.owner.auth,
          query: `resourceType=base&resourceId=${ws.baseId}`,
        })
      ).status,
    ).toBe(200);
  });

  it('answers 403 naming table|delete to an editor, 400 for a bad query, 404 for an unknown base', async () => {
    const ws = await newWorkspace();
    const editor = await newMember(ws, 'editor');
    const t = await createTable(ws);
    await trashTable(ws, t.id);
    const q = `resourceType=base&resourceId=${ws.baseId}`;
    expect(await call('reset-trash-items', { token: editor.auth, query: q })).toMatchObject(
      forbidden(`not allowed to operate table|delete on ${ws.baseId}`),
    );
    expect((await trashItems(ws)).body.trashItems).toHaveLength(1);
    expect(
      await call('reset-trash-items', { token: ws.owner.auth, query: 'resourceType=table' }),
    ).toMatchObject(invalid(/./));
    const unknown = newId('base');
    expect(
      await call('reset-trash-items', {
        token: ws.owner.auth,
        query: `resourceType=base&resourceId=${unknown}`,
      }),
    ).toMatchObject(notFound(`Base ${unknown} not found`));
  });
});

describe('the purge worker', () => {
  /** A table of `n` records whose permanent delete is recorded but not yet run (as after a crash). */
  const pendingPurge = async (n: number, jobTime = new Date()) => {
    const ws = await newWorkspace();
    const t = await createTable(ws, { records: [] });
    for (let done = 0; done < n; done += 1000) {
      const res = await call('create-records', {
        token: ws.owner.auth,
        params: { tableId: t.id },
        body: {
          records: Array.from({ length: Math.min(1000, n - done) }, (_, i) => ({
            fields: { Name: `r${done + i}` },
          })),
        },
      });
      expect(res.status).toBe(201);
    }
    await transact(
      [
        purgeJobOp(
          { kind: 'table', resourceId: t.id },
          { spaceId: ws.spaceId, baseId: ws.baseId, userId: ws.owner.id },
          jobTime,
        ),
      ],
      () => new Error('x') as never,
    );
    return { ws, t };
  };

  it('stops when its budget is spent and continues from what is left on the next run', async () => {
    const { t } = await pendingPurge(1500);
    let pages = 0;
    const onePage = () => ++pages < 2;

    expect(await runPurgeJob({ kind: 'table', resourceId: t.id }, onePage)).toBe('more');
    const left = await itemsMentioning(t.id);
    expect(left.length).toBeGreaterThan(0);
    expect(left.length).toBeLessThan(3000);
    expect((await getItems([keys.purgeJob('table', t.id)])).get(keys.purgeJob('table', t.id))).toMatchObject({
      runs: 1,
    });

    expect(await runPurgeJob({ kind: 'table', resourceId: t.id })).toBe('done');
    expect(await leftovers([t.id])).toEqual([]);
    // a message delivered again after the job finished does nothing
    expect(await runPurgeJob({ kind: 'table', resourceId: t.id })).toBe('done');
  });

  it('tells its starter whether the job is queued, running or done (GET /job), and no one else', async () => {
    const { ws, t } = await pendingPurge(1500);
    const job = { params: { kind: 'table' as const, resourceId: t.id } };
    const stateOf = async (token = ws.owner.auth) => call('get-job', { ...job, token });

    expect(await stateOf()).toMatchObject({
      status: 200,
      body: { kind: 'table', resourceId: t.id, state: 'queued', runs: 0, createdTime: expect.any(String) },
    });
    let pages = 0;
    expect(await runPurgeJob({ kind: 'table', resourceId: t.id }, () => ++pages < 2)).toBe('more');
    expect(await stateOf()).toMatchObject({
      body: { state: 'running', runs: 1, lastRunTime: expect.any(String) },
    });

    expect(await runPurgeJob({ kind: 'table', resourceId: t.id })).toBe('done');
    expect(await stateOf()).toMatchObject({
      status: 200,
      body: { state: 'done', runs: 2, finishedTime: expect.any(String) },
    });
    // a batch read that fell between the finishing transaction's two writes saw neither item:
    // the status reads again, atomically, rather than answer 404 for an instant
    expect(await currentJobStatus(job.params, ws.owner.id, undefined, undefined)).toMatchObject({
      state: 'done',
      runs: 2,
    });
    expect(await leftovers([t.id])).toEqual([]);

    const stranger = await newUser();
    expect(await stateOf(stranger.auth)).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect(
      await call('get-job', { params: { kind: 'base', resourceId: t.id }, token: ws.owner.auth }),
    ).toMatchObject({ status: 404 });
    expect(
      await call('get-job', { params: { kind: 'record', resourceId: t.id }, token: ws.owner.auth }),
    ).toMatchObject({ status: 400 });
  });

  it('is safe when the same job runs twice at once', async () => {
    const { t } = await pendingPurge(1200);
    const results = await Promise.all([
      runPurgeJob({ kind: 'table', resourceId: t.id }),
      runPurgeJob({ kind: 'table', resourceId: t.id }),
    ]);
    expect(results).toEqual(['done', 'done']);
    expect(await leftovers([t.id])).toEqual([]);
  });

  it('the Lambda runs each job of its batch and reports only the messages that failed', async () => {
    const { t } = await pendingPurge(30);
    const { handler } = await import('#functions/workers/purge-worker.ts');
    const context = { getRemainingTimeInMillis: () => 900_000 } as unknown as Context;
    const record = (messageId: string, body: string) => ({ messageId, body }) as SQSRecord;

    const out = await handler(
      {
        Records: [
          record('m1', JSON.stringify({ kind: 'table', resourceId: t.id })),
          record('m2', '{not json'),
          record('m3', JSON.stringify({ kind: 'record', resourceId: t.id })),
        ],
      },
      context,
    );

    expect(out).toEqual({ batchItemFailures: [{ itemIdentifier: 'm2' }] });
    expect(await leftovers([t.id])).toEqual([]);
  });

  it('sends again a job no worker ran for 20 minutes (its message was lost), and no fresh one', async () => {
    const { t: stale } = await pendingPurge(5, new Date(Date.now() - STALE_JOB_MS - 60_000));
    const { t: fresh } = await pendingPurge(5);

    expect(await sweepPurgeJobs()).toBeGreaterThanOrEqual(1);
    await drainPurges();

    expect(await leftovers([stale.id])).toEqual([]);
    expect((await itemsMentioning(fresh.id)).length).toBeGreaterThan(0);
    expect(await runPurgeJob({ kind: 'table', resourceId: fresh.id })).toBe('done');
  });
});
