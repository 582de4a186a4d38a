import { describe, expect, it } from 'vitest';
import { ConflictError } from '#shared/core/errors.ts';
import { transact } from '#shared/db/client.ts';
import { notificationOps } from '#shared/entities/notifications.ts';
import { newId } from '#shared/ids.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';

type User = Awaited<ReturnType<typeof newUser>>;

interface Notification {
  id: string;
  notifyType: string;
  notifyIcon: unknown;
  message: string;
  url: string;
  isRead: boolean;
  createdTime: string;
}

/**
 * Gives the user `count` unread notifications, one second apart (so their order is known),
 * the way a change that causes one does: the item and the counter in one transaction.
 * Returns their ids, oldest first.
 */
const seed = async (userId: string, count: number, start = Date.now() - 86_400_000): Promise<string[]> => {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const ops = notificationOps(
      { userId, notifyType: 'system', message: `Message ${i}`, url: `/notification/${i}` },
      new Date(start + i * 1000),
    );
    const [item] = ops;
    if (!item || !('put' in item)) throw new Error('notificationOps must start with the put');
    await transact(ops, () => new ConflictError('seeding failed'));
    ids.push(String(item.put.id));
  }
  return ids;
};

const list = (user: User, query = '') => call('list-notifications', { token: user.auth, query });

/** Every page of the list, following `nextCursor`. */
const allPages = async (user: User, state?: 'unread' | 'read') => {
  const pages: Notification[][] = [];
  let cursor: string | null = null;
  do {
    const query = [state ? `notifyStates=${state}` : '', cursor ? `cursor=${encodeURIComponent(cursor)}` : '']
      .filter(Boolean)
      .join('&');
    const res = await list(user, query);
    expect(res.status).toBe(200);
    pages.push(res.body.notifications);
    cursor = res.body.nextCursor;
    expect(pages.length).toBeLessThan(100);
  } while (cursor);
  return pages;
};

const unreadCount = async (user: User): Promise<number> => {
  const res = await call('count-unread-notifications', { token: user.auth });
  expect(res.status).toBe(200);
  expect(Object.keys(res.body)).toEqual(['unreadCount']);
  return res.body.unreadCount as number;
};

const setRead = (user: User, notificationId: string, body: unknown) =>
  call('update-notification-status', { token: user.auth, params: { notificationId }, body });

const markAll = (user: User) => call('mark-all-notifications-read', { token: user.auth });

describe('GET /notifications', () => {
  it('answers an empty page for a user without notifications', async () => {
    const user = await newUser();
    const res = await list(user);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ notifications: [], nextCursor: null });
  });

  it('answers each notification in the contract shape', async () => {
    const user = await newUser();
    const start = Date.UTC(2030, 0, 2, 3, 4, 5, 6);
    const [id] = await seed(user.id, 1, start);
    const res = await list(user);
    expect(res.body).toEqual({
      notifications: [
        {
          id,
          notifyType: 'system',
          notifyIcon: { iconUrl: null },
          message: 'Message 0',
          url: '/notification/0',
          isRead: false,
          createdTime: '2030-01-02T03:04:05.006Z',
        },
      ],
      nextCursor: null,
    });
  });

  it('pages 23 notifications newest first, 10 a page, with no overlap and no gap', async () => {
    const user = await newUser();
    const ids = await seed(user.id, 23);
    const pages = await allPages(user);
    expect(pages.map((p) => p.length)).toEqual([10, 10, 3]);
    expect(pages.flat().map((n) => n.id)).toEqual([...ids].reverse());
    expect(pages.flat().map((n) => n.message)).toEqual(ids.map((_, i) => `Message ${i}`).reverse());
  });

  it('answers no cursor when exactly a page remains, and one when a page and one remain', async () => {
    const [ten, eleven] = await Promise.all([newUser(), newUser()]);
    await Promise.all([seed(ten.id, 10), seed(eleven.id, 11)]);
    const tenRes = await list(ten);
    expect(tenRes.body.notifications).toHaveLength(10);
    expect(tenRes.body.nextCursor).toBeNull();
    const elevenRes = await list(eleven);
    expect(elevenRes.body.notifications).toHaveLength(10);
    expect(elevenRes.body.nextCursor).toEqual(expect.any(String));
    const rest = await list(eleven, `cursor=${encodeURIComponent(elevenRes.body.nextCursor)}`);
    expect(rest.body.notifications).toHaveLength(1);
    expect(rest.body.nextCursor).toBeNull();
  });

  it('pages a mix of read and unread newest first, with no overlap and no gap', async () => {
    const user = await newUser();
    const ids = await seed(user.id, 23);
    const read = new Set(ids.filter((_, i) => i % 3 === 0));
    for (const id of read) expect((await setRead(user, id, { isRead: true })).status).toBe(200);

    const pages = await allPages(user);
    expect(pages.map((p) => p.length)).toEqual([10, 10, 3]);
    expect(pages.flat().map((n) => [n.id, n.isRead])).toEqual(
      [...ids].reverse().map((id) => [id, read.has(id)]),
    );
  });

  it('filters by notifyStates=unread and notifyStates=read, each newest first and paged', async () => {
    const user = await newUser();
    const ids = await seed(user.id, 23);
    const read = ids.filter((_, i) => i % 2 === 1); // 11 read, 12 unread
    for (const id of read) expect((await setRead(user, id, { isRead: true })).status).toBe(200);
    const unread = ids.filter((id) => !read.includes(id));

    const unreadPages = await allPages(user, 'unread');
    expect(unreadPages.map((p) => p.length)).toEqual([10, 2]);
    expect(unreadPages.flat().map((n) => n.id)).toEqual([...unread].reverse());
    expect(unreadPages.flat().every((n) => !n.isRead)).toBe(true);

    const readPages = await allPages(user, 'read');
    expect(readPages.map((p) => p.length)).toEqual([10, 1]);
    expect(readPages.flat().map((n) => n.id)).toEqual([...read].reverse());
    expect(readPages.flat().every((n) => n.isRead)).toBe(true);
  });

  it('treats an empty cursor as the first page', async () => {
    const user = await newUser();
    const ids = await seed(user.id, 2);
    const res = await list(user, 'cursor=');
    expect(res.status).toBe(200);
    expect(res.body.notifications.map((n: Notification) => n.id)).toEqual([...ids].reverse());
  });

  it("shows only the caller's notifications", async () => {
    const [user, other] = await Promise.all([newUser(), newUser()]);
    const mine = await seed(user.id, 2);
    await seed(other.id, 3);
    const res = await list(user);
    expect(res.body.notifications.map((n: Notification) => n.id)).toEqual([...mine].reverse());
  });

  it.each([
    ['not base64 of a cursor', 'cursor=garbage'],
    ['an id of another kind', `cursor=${Buffer.from('spc0000000000000000').toString('base64url')}`],
    ['a raw notification id', 'cursor=not0000000000000000'],
    ['an overlong cursor', `cursor=${'a'.repeat(201)}`],
    ['notifyStates=bogus', 'notifyStates=bogus'],
    ['two notifyStates', 'notifyStates=read&notifyStates=unread'],
  ])('answers 400 validation_error for %s', async (_, query) => {
    const user = await newUser();
    await seed(user.id, 1);
    const res = await list(user, query);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 400, code: 'validation_error' });
  });

  it('names the parameter in the 400 for a bad cursor and a bad state', async () => {
    const user = await newUser();
    const badCursor = await list(user, 'cursor=garbage');
    expect(badCursor.body.message).toContain('cursor');
    const badState = await list(user, 'notifyStates=bogus');
    expect(badState.body.message).toContain('notifyStates');
  });

  it('answers 401 without a token', async () => {
    const res = await call('list-notifications');
    expect(res).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
  });
});

describe('GET /notifications/unread-count', () => {
  it('answers 0 for a new user', async () => {
    const user = await newUser();
    const res = await call('count-unread-notifications', { token: user.auth });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ unreadCount: 0 });
  });

  it('counts the unread notifications of the caller only', async () => {
    const [user, other] = await Promise.all([newUser(), newUser()]);
    await seed(user.id, 3);
    await seed(other.id, 5);
    expect(await unreadCount(user)).toBe(3);
    expect(await unreadCount(other)).toBe(5);
  });

  it('counts a notification from being added to a space', async () => {
    const [owner, user] = await Promise.all([newUser(), newUser()]);
    const space = await call('create-space', { token: owner.auth, body: { name: 'Ops' } });
    await call('add-collaborators', {
      token: owner.auth,
      params: { spaceId: space.body.id },
      body: { collaborators: [{ principalId: user.id, principalType: 'user' }], role: 'viewer' },
    });
    expect(await unreadCount(user)).toBe(1);
    expect(await unreadCount(owner)).toBe(0);
  });
});

describe('PATCH /notifications/{notificationId}/status', () => {
  it('marks one read (count drops by one), idempotently, and back unread', async () => {
    const user = await newUser();
    const ids = await seed(user.id, 3);
    const target = ids[1] as string;
    expect(await unreadCount(user)).toBe(3);

    const res = await setRead(user, target, { isRead: true });
    expect(res.status).toBe(200);
    expect(res.body).toBeUndefined();
    expect(await unreadCount(user)).toBe(2);

    expect((await setRead(user, target, { isRead: true })).status).toBe(200);
    expect(await unreadCount(user)).toBe(2);
    const afterRead = (await list(user)).body.notifications as Notification[];
    expect(afterRead.map((n) => [n.id, n.isRead])).toEqual([
      [ids[2], false],
      [target, true],
      [ids[0], false],
    ]);
    expect(afterRead.find((n) => n.id === target)).toMatchObject({
      message: 'Message 1',
      url: '/notification/1',
    });

    expect((await setRead(user, target, { isRead: false })).status).toBe(200);
    expect(await unreadCount(user)).toBe(3);
    expect((await setRead(user, target, { isRead: false })).status).toBe(200);
    expect(await unreadCount(user)).toBe(3);
    const afterUnread = (await list(user)).body.notifications as Notification[];
    expect(afterUnread.map((n) => n.isRead)).toEqual([false, false, false]);
  });

  it('marks one read exactly once when two calls race, and both succeed', async () => {
    const user = await newUser();
    const [id] = await seed(user.id, 2);
    const results = await Promise.all([
      setRead(user, id as string, { isRead: true }),
      setRead(user, id as string, { isRead: true }),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    expect(await unreadCount(user)).toBe(1);
    const read = (await list(user, 'notifyStates=read')).body.notifications as Notification[];
    expect(read.map((n) => n.id)).toEqual([id]);
  });

  it('answers 404 for an unknown id', async () => {
    const user = await newUser();
    await seed(user.id, 1);
    const id = newId('notification');
    const res = await setRead(user, id, { isRead: true });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 404, code: 'not_found', message: `Notification ${id} not found` });
    expect(await unreadCount(user)).toBe(1);
  });

  it("answers 404 for someone else's notification and leaves it unread", async () => {
    const [user, other] = await Promise.all([newUser(), newUser()]);
    const [theirs] = await seed(other.id, 1);
    const res = await setRead(user, theirs as string, { isRead: true });
    expect(res).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect(await unreadCount(other)).toBe(1);
    expect(await unreadCount(user)).toBe(0);
    expect((await list(other)).body.notifications[0].isRead).toBe(false);
  });

  it.each([
    ['isRead as a string', { isRead: 'yes' }],
    ['isRead as a number', { isRead: 1 }],
    ['no isRead', {}],
  ])('answers 400 for %s and changes nothing', async (_, body) => {
    const user = await newUser();
    const [id] = await seed(user.id, 1);
    const res = await setRead(user, id as string, body);
    expect(res).toMatchObject({ status: 400, body: { code: 'validation_error' } });
    expect(res.body.message).toContain('isRead');
    expect(await unreadCount(user)).toBe(1);
  });

  it('answers 400 for a malformed id', async () => {
    const user = await newUser();
    const res = await setRead(user, 'spc0000000000000000', { isRead: true });
    expect(res).toMatchObject({ status: 400, body: { code: 'validation_error' } });
    expect(res.body.message).toContain('notificationId');
  });
});

describe('PATCH /notifications/read-all', () => {
  it('answers 200 with an empty body and marks every notification read', async () => {
    const user = await newUser();
    const ids = await seed(user.id, 12);
    await setRead(user, ids[4] as string, { isRead: true });
    expect(await unreadCount(user)).toBe(11);

    const res = await markAll(user);
    expect(res.status).toBe(200);
    expect(res.body).toBeUndefined();

    expect(await unreadCount(user)).toBe(0);
    const all = (await allPages(user)).flat();
    expect(all.map((n) => n.id)).toEqual([...ids].reverse());
    expect(all.every((n) => n.isRead)).toBe(true);
    expect((await list(user, 'notifyStates=unread')).body).toEqual({ notifications: [], nextCursor: null });
  });

  it('answers 200 for a user without notifications, and when repeated', async () => {
    const user = await newUser();
    expect((await markAll(user)).status).toBe(200);
    expect(await unreadCount(user)).toBe(0);
    await seed(user.id, 2);
    expect((await markAll(user)).status).toBe(200);
    expect((await markAll(user)).status).toBe(200);
    expect(await unreadCount(user)).toBe(0);
  });

  it('marks 120 unread read, paging internally, and keeps the count exact', async () => {
    const user = await newUser();
    const ids = await seed(user.id, 120);
    expect(await unreadCount(user)).toBe(120);

    expect((await markAll(user)).status).toBe(200);
    expect(await unreadCount(user)).toBe(0);
    const all = (await allPages(user)).flat();
    expect(all).toHaveLength(120);
    expect(all.map((n) => n.id)).toEqual([...ids].reverse());
    expect(all.every((n) => n.isRead)).toBe(true);

    // The counter stays exact afterwards: one more unread counts one, one back unread counts two.
    const [fresh] = await seed(user.id, 1, Date.now());
    expect(await unreadCount(user)).toBe(1);
    expect((await setRead(user, ids[0] as string, { isRead: false })).status).toBe(200);
    expect(await unreadCount(user)).toBe(2);
    expect(
      (await list(user, 'notifyStates=unread')).body.notifications.map((n: Notification) => n.id),
    ).toEqual([fresh, ids[0]]);
  });

  it('keeps the count exact when two read-all calls race, and both succeed', async () => {
    const user = await newUser();
    await seed(user.id, 60);
    const results = await Promise.all([markAll(user), markAll(user)]);
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    expect(await unreadCount(user)).toBe(0);
    expect((await list(user, 'notifyStates=unread')).body.notifications).toEqual([]);
    expect((await allPages(user, 'read')).flat()).toHaveLength(60);
  });

  it("leaves other users' notifications unread", async () => {
    const [user, other] = await Promise.all([newUser(), newUser()]);
    await seed(user.id, 2);
    await seed(other.id, 2);
    await markAll(user);
    expect(await unreadCount(other)).toBe(2);
  });
});
