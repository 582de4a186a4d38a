import { describe, expect, it } from 'vitest';
import { getItems } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { readTable } from '#shared/entities/tables.ts';
import { entryOf } from '#shared/entities/trash-items.ts';
import { call } from '#test/support/invoke.ts';
import { scanTable } from '#test/support/scan.ts';
import { createSpace, newMember, newWorkspace } from '#test/support/workspace.ts';

// Issue 27, item 6: what is created under a base while the base moves to another space must end
// up in the new space. Every call runs in this process (Promise.all), so DynamoDB Local sees the
// creates, the trashes and the move interleaved; each round has its own space, base and member.

const CREATES = 64;
const TRASHES = 24;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Ws = Awaited<ReturnType<typeof newWorkspace>>;

/** Sends a call as a client would: again on a 409 (something changed meanwhile), until it is done. */
const untilDone = async (send: () => Promise<{ status: number }>) => {
  const statuses: number[] = [];
  for (let attempt = 0; attempt < 50; attempt++) {
    const { status } = await send();
    statuses.push(status);
    if (status !== 409) return statuses;
    await sleep(5);
  }
  return statuses;
};

const moveUntilDone = (ws: Ws, spaceId: string) =>
  untilDone(() =>
    call('move-base', { token: ws.owner.auth, params: { baseId: ws.baseId }, body: { spaceId } }),
  );

/**
 * One round: a base with a member of its space only, `CREATES` table creates started `gapMs`
 * apart and a move to another space started among them (after `moveAfter` creates).
 */
const createsAroundMove = async (moveAfter: number, gapMs: number) => {
  const ws = await newWorkspace();
  const [oldMember, target] = await Promise.all([newMember(ws, 'editor'), createSpace(ws.owner, 'Target')]);
  const creates: Promise<{ status: number; body: { id?: string } }>[] = [];
  let move: Promise<number[]> | undefined;
  for (let i = 0; i < CREATES; i++) {
    if (i === moveAfter) move = moveUntilDone(ws, target);
    creates.push(
      call('create-table', {
        token: ws.owner.auth,
        params: { baseId: ws.baseId },
        body: { name: `T${i}`, records: [{ fields: { Name: `r${i}` } }] },
      }),
    );
    await sleep(gapMs);
  }
  const [answers, moves] = await Promise.all([Promise.all(creates), move]);
  const created = answers.filter((a) => a.status === 201).map((a) => a.body.id as string);
  return { ws, oldMember, target, answers, moves: moves ?? [], created };
};

/** The table items of a base (a consistent scan: also those no reference lists). */
const tableItemsOf = async (baseId: string) =>
  scanTable({
    expression: 'begins_with(pk, :tbl) AND sk = :table AND baseId = :base',
    values: { ':tbl': 'TABLE#', ':table': 'TABLE', ':base': baseId },
  });

describe('tables created while their base moves to another space', () => {
  it.each([
    [0, 8, 0],
    [1, 24, 4],
    [2, 16, 12],
    [3, 40, 12],
  ])(
    'round %i (move started after %i of 64 creates, %i ms apart): every table of the base carries the new space, and a member of the old space only gets 403/404 on its records',
    async (_round, moveAfter, gapMs) => {
      const { ws, oldMember, target, moves, created } = await createsAroundMove(moveAfter, gapMs);
      expect(moves.at(-1)).toBe(200);
      const listed = await call('list-tables', { token: ws.owner.auth, params: { baseId: ws.baseId } });
      expect(listed.status).toBe(200);
      const tableIds = (listed.body as { id: string }[]).map((t) => t.id);
      expect(new Set(tableIds)).toEqual(new Set(created));
      const spaces = await Promise.all(tableIds.map(async (id) => (await readTable(id))?.spaceId));
      expect(spaces.filter((s) => s !== target)).toEqual([]);
      for (const tableId of tableIds) {
        const read = await call('list-records', { token: oldMember.auth, params: { tableId } });
        expect([403, 404]).toContain(read.status);
        const write = await call('create-records', {
          token: oldMember.auth,
          params: { tableId },
          body: { records: [{ fields: {} }] },
        });
        expect([403, 404]).toContain(write.status);
      }
    },
  );

  it.each([
    [0, 4, 0],
    [1, 32, 4],
    [2, 8, 12],
    [3, 48, 12],
  ])(
    'round %i (move started after %i of 64 creates, %i ms apart): a create answers 201 or a 409 to retry, never a 500, and leaves a whole table or nothing',
    async (_round, moveAfter, gapMs) => {
      const { ws, answers, moves, created } = await createsAroundMove(moveAfter, gapMs);
      expect(moves.every((s) => s === 200 || s === 409)).toBe(true);
      for (const answer of answers) {
        expect([201, 409]).toContain(answer.status);
        if (answer.status === 409) expect(answer.body).toMatchObject({ status: 409, code: 'conflict' });
      }
      // Nothing of a refused create: the base's table items are exactly those answered 201.
      const items = await tableItemsOf(ws.baseId);
      expect(new Set(items.map((i) => i.id))).toEqual(new Set(created));
      const loaded = await getItems(created.map((id) => keys.baseTable(ws.baseId, id)));
      expect(created.filter((id) => !loaded.get(keys.baseTable(ws.baseId, id)))).toEqual([]);
      // Each created table whole: its fields, its view and its one record.
      for (const tableId of created) {
        const records = await call('list-records', { token: ws.owner.auth, params: { tableId } });
        expect(records.status).toBe(200);
        expect(records.body.records).toHaveLength(1);
        const fields = await call('list-fields', { token: ws.owner.auth, params: { tableId } });
        expect(fields.body).toHaveLength(3);
        const views = await call('list-views', { token: ws.owner.auth, params: { tableId } });
        expect(views.body).toHaveLength(1);
      }
    },
  );
});

describe('tables trashed while their base moves to another space', () => {
  it.each([
    [0, 2],
    [1, 8],
    [2, 14],
    [3, 20],
  ])(
    'round %i (move started after %i of 24 trashes): every trash entry of the base carries the new space, and a member of the old space only cannot restore one',
    async (_round, moveAfter) => {
      const ws = await newWorkspace();
      // an owner of the old space: a trash entry left there would be theirs to restore
      const [oldMember, target] = await Promise.all([
        newMember(ws, 'owner'),
        createSpace(ws.owner, 'Target'),
      ]);
      const tableIds: string[] = [];
      for (let i = 0; i < TRASHES; i++) {
        const res = await call('create-table', {
          token: ws.owner.auth,
          params: { baseId: ws.baseId },
          body: { name: `T${i}`, records: [] },
        });
        expect(res.status).toBe(201);
        tableIds.push(res.body.id);
      }
      const trashes: Promise<number[]>[] = [];
      let move: Promise<number[]> | undefined;
      for (const [i, tableId] of tableIds.entries()) {
        if (i === moveAfter) move = moveUntilDone(ws, target);
        trashes.push(
          untilDone(() =>
            call('delete-table', { token: ws.owner.auth, params: { baseId: ws.baseId, tableId } }),
          ),
        );
        if (i % 4 === 3) await sleep(2);
      }
      const [answers, moves] = await Promise.all([Promise.all(trashes), move]);
      expect(moves?.at(-1)).toBe(200);
      for (const statuses of answers) expect(statuses.at(-1)).toBe(200);
      const entries = await scanTable({
        expression: '(begins_with(pk, :trs) OR begins_with(sk, :trs)) AND baseId = :base',
        values: { ':trs': 'TRASH#', ':base': ws.baseId },
      });
      // every table trashed: each entry and its listing copy
      expect(entries).toHaveLength(2 * TRASHES);
      expect(entries.map(entryOf).filter((e) => e.spaceId !== target)).toEqual([]);
      const canonical = entries.map(entryOf).filter((e, i, all) => all.findIndex((x) => x.id === e.id) === i);
      for (const entry of canonical) {
        const restore = await call('restore-trash-item', {
          token: oldMember.auth,
          params: { trashId: entry.id },
        });
        expect([403, 404]).toContain(restore.status);
      }
    },
  );
});
