import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { releaseDueFiles } from '#shared/attachments/release.ts';
import { putItem, queryAll } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { RELEASE_GRACE_MS, readAttachment } from '#shared/entities/attachments.ts';
import { shardOf } from '#shared/entities/file-releases.ts';
import { drainPurges } from '#shared/jobs/purge-queue.ts';
import { headObject, putObject } from '#shared/storage/objects.ts';
import { type FilesTable, filesTable, uploadFile } from '#test/support/attachments.ts';
import { call } from '#test/support/invoke.ts';
import { useStreamPoller } from '#test/support/stream-poller.ts';

/**
 * Files are released when no cell holds them (issue 29, lifecycle; data-flow.md 6): the stream
 * processor (DynamoDB Local's real stream) keeps which records hold which file; a file no record
 * holds is marked, and the purge worker's sweep (called here with a clock a day ahead) removes its
 * item, its object and thumbnails from the S3-compatible server. A file another cell holds stays;
 * a table in the trash keeps its files; a file taken again before the sweep stays.
 */

const poller = useStreamPoller();
const DAY_AFTER = () => new Date(Date.now() + RELEASE_GRACE_MS + 60_000);

const ok = <T extends { status: number; body: unknown }>(res: T, what: string, status = [200, 201]) => {
  if (!status.includes(res.status)) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res;
};

/** Creates records in `tableId` whose `Files` cells hold `tokens` (one record each); answers their ids. */
const holdIn = async (t: { owner: { auth: string } }, tableId: string, ...tokens: string[]) => {
  const res = ok(
    await call('create-records', {
      token: t.owner.auth,
      params: { tableId },
      body: { records: tokens.map((token) => ({ fields: { Files: [{ token }] } })) },
    }),
    'create-records',
  );
  return res.body.records.map((r: { id: string }) => r.id) as string[];
};

const deleteRecord = async (t: FilesTable, recordId: string) =>
  ok(
    await call('delete-record', { token: t.owner.auth, params: { tableId: t.tableId, recordId } }),
    'delete-record',
  );

/** The records that hold a file, as the references say. */
const holders = async (token: string) =>
  (await queryAll(keys.attachmentReferencesOf(token))).map((i) => `${i.tableId}#${i.recordId}`).sort();

const stored = async (path: string) => (await headObject(path)) !== undefined;

const jpeg = async () =>
  new Uint8Array(
    await sharp({ create: { width: 300, height: 200, channels: 3, background: '#336699' } })
      .jpeg()
      .toBuffer(),
  );

describe('releasing files no cell holds', () => {
  it('a record deleted for good lets its file go: marked, then the sweep a day later removes the item, the file and its thumbnail', async () => {
    const t = await filesTable();
    const file = await uploadFile(t.owner.auth, t.baseId, await jpeg(), 'image/jpeg', 'p.jpg');
    await drainPurges();
    const [recordId] = await holdIn(t, t.tableId, file.token);
    await poller.caughtUp();
    expect(await holders(file.token)).toEqual([`${t.tableId}#${recordId}`]);
    expect((await readAttachment(file.token))?.releaseAfter).toBeUndefined();
    expect(await stored(`${file.path}_sm`)).toBe(true);

    await deleteRecord(t, recordId as string);
    await poller.caughtUp();

    const marked = await readAttachment(file.token);
    expect(await holders(file.token)).toEqual([]);
    expect(Date.parse(marked?.releaseAfter ?? '') - Date.now()).toBeGreaterThan(RELEASE_GRACE_MS - 60_000);
    expect(await releaseDueFiles(new Date())).toMatchObject({ released: 0 });
    expect(await stored(file.path)).toBe(true);

    const report = await releaseDueFiles(DAY_AFTER());

    expect(report.released).toBeGreaterThanOrEqual(1);
    expect(await readAttachment(file.token)).toBeUndefined();
    expect(await stored(file.path)).toBe(false);
    expect(await stored(`${file.path}_sm`)).toBe(false);
  });

  it('a file another record holds (a copied token) stays when one record goes', async () => {
    const t = await filesTable();
    const file = await uploadFile(t.owner.auth, t.baseId);
    const [first, second] = await holdIn(t, t.tableId, file.token, file.token);
    await deleteRecord(t, first as string);
    await poller.caughtUp();

    expect(await holders(file.token)).toEqual([`${t.tableId}#${second}`]);
    expect((await readAttachment(file.token))?.releaseAfter).toBeUndefined();
    await releaseDueFiles(DAY_AFTER());
    expect(await stored(file.path)).toBe(true);
  });

  it('a cell cleared lets the file go like a record deleted; a cell that takes it again before the sweep keeps it', async () => {
    const t = await filesTable();
    const file = await uploadFile(t.owner.auth, t.baseId);
    const [recordId = ''] = await holdIn(t, t.tableId, file.token);
    await poller.caughtUp();
    ok(
      await call('update-record', {
        token: t.owner.auth,
        params: { tableId: t.tableId, recordId },
        body: { record: { fields: { Files: null } } },
      }),
      'update-record',
    );
    await poller.caughtUp();
    expect((await readAttachment(file.token))?.releaseAfter).toBeDefined();

    await holdIn(t, t.tableId, file.token); // Teable's undo re-creates the cell from the token
    await poller.caughtUp();

    expect((await readAttachment(file.token))?.releaseAfter).toBeUndefined();
    expect(await releaseDueFiles(DAY_AFTER())).toMatchObject({ released: 0 });
    expect(await stored(file.path)).toBe(true);
  });

  it('a table in the trash keeps its files, restored they are there; deleted for good they go after a day', async () => {
    const t = await filesTable();
    const file = await uploadFile(t.owner.auth, t.baseId);
    await holdIn(t, t.tableId, file.token);
    ok(
      await call('delete-table', { token: t.owner.auth, params: { baseId: t.baseId, tableId: t.tableId } }),
      'delete-table',
    );
    await poller.caughtUp();
    expect((await readAttachment(file.token))?.releaseAfter).toBeUndefined();
    const items = ok(
      await call('list-trash-items', {
        token: t.owner.auth,
        query: `resourceType=base&resourceId=${t.baseId}`,
      }),
      'list-trash-items',
    );
    ok(
      await call('restore-trash-item', {
        token: t.owner.auth,
        params: { trashId: items.body.trashItems[0].id },
      }),
      'restore-trash-item',
    );
    await releaseDueFiles(DAY_AFTER());
    const got = ok(
      await call('list-records', { token: t.owner.auth, params: { tableId: t.tableId } }),
      'list',
    );
    const holding = got.body.records.find((r: { fields: Record<string, unknown> }) => r.fields.Files);
    const url = holding.fields.Files[0].presignedUrl as string;
    expect((await fetch(url)).status).toBe(200);

    ok(
      await call('delete-table-permanently', {
        token: t.owner.auth,
        params: { baseId: t.baseId, tableId: t.tableId },
      }),
      'delete-table-permanently',
    );
    await drainPurges();
    await poller.caughtUp();

    expect(await holders(file.token)).toEqual([]);
    expect((await readAttachment(file.token))?.releaseAfter).toBeDefined();
    await releaseDueFiles(DAY_AFTER());
    expect(await stored(file.path)).toBe(false);
    expect(await readAttachment(file.token)).toBeUndefined();
  });

  it('a file held in another table of the base stays when a table holding it is purged', async () => {
    const t = await filesTable();
    const other = ok(
      await call('create-table', {
        token: t.owner.auth,
        params: { baseId: t.baseId },
        body: {
          fields: [
            { type: 'singleLineText', name: 'Name' },
            { type: 'attachment', name: 'Files' },
          ],
        },
      }),
      'create-table',
    );
    const file = await uploadFile(t.owner.auth, t.baseId);
    await holdIn(t, t.tableId, file.token);
    await holdIn(t, other.body.id, file.token);
    ok(
      await call('delete-table-permanently', {
        token: t.owner.auth,
        params: { baseId: t.baseId, tableId: t.tableId },
      }),
      'delete-table-permanently',
    );
    await drainPurges();
    await poller.caughtUp();

    expect((await holders(file.token)).map((h) => h.split('#')[0])).toEqual([other.body.id]);
    await releaseDueFiles(DAY_AFTER());
    expect(await stored(file.path)).toBe(true);
  });

  it('a file uploaded and never put in a cell is released a day after its upload', async () => {
    const t = await filesTable();
    const file = await uploadFile(t.owner.auth, t.baseId);
    expect(Date.parse((await readAttachment(file.token))?.releaseAfter ?? '')).toBeGreaterThan(Date.now());

    await releaseDueFiles(DAY_AFTER());

    expect(await readAttachment(file.token)).toBeUndefined();
    expect(await stored(file.path)).toBe(false);
  });

  it('a file minutes from its release is no longer taken by a new cell (400), so the sweep never removes a held file', async () => {
    const t = await filesTable();
    const file = await uploadFile(t.owner.auth, t.baseId);
    const item = await queryAll({ pk: keys.attachment(file.token).pk });
    await putItem({ ...item[0], releaseAfter: new Date(Date.now() + 60_000).toISOString() });

    const res = await call('create-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: { records: [{ fields: { Files: [{ token: file.token }] } }] },
    });

    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain(file.token);
  });

  it('a sweep interrupted after removing the item deletes the objects the next time (the entry stays until they are gone)', async () => {
    const token = `interrupted${'x'.repeat(21)}`;
    const path = `table/${token}`;
    await putObject(path, new TextEncoder().encode('left behind'), 'text/plain', 11);
    const dueTime = new Date(Date.now() - 1000).toISOString();
    await putItem({
      ...keys.fileRelease(shardOf(token), dueTime, token),
      type: 'fileRelease',
      token,
      path,
      dueTime,
      itemRemoved: true,
    });

    await releaseDueFiles(new Date());

    expect(await stored(path)).toBe(false);
    expect(await queryAll({ pk: keys.fileReleasesOf(shardOf(token)).pk })).not.toContainEqual(
      expect.objectContaining({ token }),
    );
  });
});
