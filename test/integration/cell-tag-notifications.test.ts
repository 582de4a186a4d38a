import { describe, expect, it } from 'vitest';
import { injectChunkFault } from '#shared/db/commit.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';
import { addMember, newTable } from '#test/support/workspace.ts';

type User = Awaited<ReturnType<typeof newUser>>;

const FIELDS = [
  { type: 'singleLineText', name: 'Name' },
  { type: 'user', name: 'Assignee', options: { shouldNotify: true } },
  { type: 'user', name: 'Team', options: { isMultiple: true, shouldNotify: true } },
  { type: 'user', name: 'Watcher', options: { isMultiple: true } },
];

/** A table with notifying user fields, its owner and two editors. */
const setup = async () => {
  const t = await newTable({ name: 'Tasks', fields: FIELDS });
  const ada = await newUser({ name: 'Ada' });
  const bob = await newUser({ name: 'Bob' });
  await addMember(t.owner, t.spaceId, ada, 'editor');
  await addMember(t.owner, t.spaceId, bob, 'editor');
  // Joining the space notified them: start each test from an empty unread list.
  for (const user of [ada, bob]) await call('mark-all-notifications-read', { token: user.auth });
  return { ...t, ada, bob };
};

const inbox = async (user: User) => {
  const [list, count] = await Promise.all([
    call('list-notifications', { token: user.auth, query: 'notifyStates=unread' }),
    call('count-unread-notifications', { token: user.auth }),
  ]);
  return {
    notifications: list.body.notifications as Record<string, unknown>[],
    unread: count.body.unreadCount,
  };
};

const create = (user: User, tableId: string, records: { fields: Record<string, unknown> }[]) =>
  call('create-records', { token: user.auth, params: { tableId }, body: { records } });

describe('collaboratorCellTag notifications', () => {
  it('notifies a user written into a notifying user cell on create, naming the table and record', async () => {
    const t = await setup();
    const res = await create(t.owner, t.tableId, [
      { fields: { Name: 'Fix bug', Assignee: { id: t.ada.id } } },
    ]);
    expect(res.status).toBe(201);
    const recordId = res.body.records[0].id;
    const { notifications, unread } = await inbox(t.ada);
    expect(unread).toBe(1);
    expect(notifications).toEqual([
      {
        id: expect.stringMatching(/^not/),
        notifyType: 'collaboratorCellTag',
        notifyIcon: { userId: t.owner.id, userName: t.owner.name },
        message: `${t.owner.name} added you to "Assignee" in the record "Fix bug" of the table "Tasks"`,
        url: `/base/${t.baseId}/${t.tableId}?recordId=${recordId}`,
        isRead: false,
        createdTime: expect.any(String),
      },
    ]);
    expect((await inbox(t.bob)).unread).toBe(0);
  });

  it('does not notify the writer, nor users of a field without shouldNotify', async () => {
    const t = await setup();
    await create(t.ada, t.tableId, [
      { fields: { Name: 'Mine', Assignee: { id: t.ada.id }, Watcher: [{ id: t.bob.id }] } },
    ]);
    expect((await inbox(t.ada)).unread).toBe(0);
    expect((await inbox(t.bob)).unread).toBe(0);
  });

  it('on update notifies only users newly in the cell, once per user per write', async () => {
    const t = await setup();
    const created = await create(t.owner, t.tableId, [{ fields: { Name: 'R', Team: [{ id: t.ada.id }] } }]);
    const recordId = created.body.records[0].id;
    expect((await inbox(t.ada)).unread).toBe(1);
    const res = await call('update-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId },
      body: {
        record: { fields: { Team: [{ id: t.ada.id }, { id: t.bob.id }], Assignee: { id: t.bob.id } } },
      },
    });
    expect(res.status).toBe(200);
    expect((await inbox(t.ada)).unread).toBe(1);
    const bob = await inbox(t.bob);
    expect(bob.unread).toBe(1);
    expect(bob.notifications[0]?.message).toBe(
      `${t.owner.name} added you to "Assignee", "Team" in the record "R" of the table "Tasks"`,
    );
    // Writing the same users again tags nobody anew.
    await call('update-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId },
      body: { record: { fields: { Team: [{ id: t.bob.id }, { id: t.ada.id }] } } },
    });
    expect((await inbox(t.bob)).unread).toBe(1);
    expect((await inbox(t.ada)).unread).toBe(1);
  });

  it('on a batch update notifies each user once; several records make one collaboratorMultiRowTag', async () => {
    const t = await setup();
    const created = await create(t.owner, t.tableId, [{ fields: { Name: 'A' } }, { fields: { Name: 'B' } }]);
    const [a, b] = created.body.records.map((r: { id: string }) => r.id);
    const res = await call('update-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: {
        records: [
          { id: a, fields: { Assignee: { id: t.ada.id } } },
          { id: b, fields: { Assignee: { id: t.ada.id }, Team: [{ id: t.bob.id }] } },
        ],
      },
    });
    expect(res.status).toBe(200);
    const ada = await inbox(t.ada);
    expect(ada.unread).toBe(1);
    expect(ada.notifications[0]).toMatchObject({
      notifyType: 'collaboratorMultiRowTag',
      message: `${t.owner.name} added you to "Assignee" in 2 records of the table "Tasks"`,
      url: `/base/${t.baseId}/${t.tableId}`,
    });
    const bob = await inbox(t.bob);
    expect(bob.notifications[0]).toMatchObject({
      notifyType: 'collaboratorCellTag',
      url: `/base/${t.baseId}/${t.tableId}?recordId=${b}`,
    });
  });

  it('notifies on duplicate: the copy puts the users into a new record', async () => {
    const t = await setup();
    const created = await create(t.ada, t.tableId, [{ fields: { Name: 'Src', Assignee: { id: t.bob.id } } }]);
    expect((await inbox(t.bob)).unread).toBe(1);
    const dup = await call('duplicate-record', {
      token: t.ada.auth,
      params: { tableId: t.tableId, recordId: created.body.records[0].id },
      body: {},
    });
    expect(dup.status).toBe(201);
    const bob = await inbox(t.bob);
    expect(bob.unread).toBe(2);
    expect(bob.notifications[0]?.url).toBe(
      `/base/${t.baseId}/${t.tableId}?recordId=${dup.body.records[0].id}`,
    );
  });

  it('writes one notification per user for a large create (journalled commit), counter exact', async () => {
    const t = await setup();
    const records = Array.from({ length: 120 }, (_, i) => ({
      fields: { Name: `R${i}`, Team: [{ id: t.ada.id }, { id: t.bob.id }] },
    }));
    const res = await create(t.owner, t.tableId, records);
    expect(res.status).toBe(201);
    for (const user of [t.ada, t.bob]) {
      const box = await inbox(user);
      expect(box.unread).toBe(1);
      expect(box.notifications).toHaveLength(1);
      expect(box.notifications[0]?.message).toBe(
        `${t.owner.name} added you to "Team" in 120 records of the table "Tasks"`,
      );
    }
  });

  it('writes no notification when the record write fails (atomic), small or large', async () => {
    const t = await setup();
    const bad = await create(t.owner, t.tableId, [
      { fields: { Name: 'ok', Assignee: { id: t.ada.id } } },
      { fields: { Name: 'bad', Assignee: { id: 'usr0000000000000000' } } },
    ]);
    expect(bad.status).toBe(400);
    expect((await inbox(t.ada)).unread).toBe(0);

    injectChunkFault((i) => {
      if (i === 2) throw new Error('injected fault');
    });
    try {
      const records = Array.from({ length: 120 }, (_, i) => ({
        fields: { Name: `R${i}`, Team: [{ id: t.ada.id }] },
      }));
      const res = await create(t.owner, t.tableId, records);
      expect(res.status).toBe(500);
    } finally {
      injectChunkFault(undefined);
    }
    const ada = await inbox(t.ada);
    expect(ada).toEqual({ notifications: [], unread: 0 });
  });
});
