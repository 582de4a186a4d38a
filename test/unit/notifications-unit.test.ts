import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toTransactItem } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { notificationOps, toNotification, unreadCountFrom } from '#shared/entities/notifications.ts';

const USER = 'usrAAAAAAAAAAAAAAAA';
const FROM = 'usrBBBBBBBBBBBBBBBB';
const NOW = new Date('2026-11-22T08:15:00.000Z');

describe('notificationOps', () => {
  it('builds the unread item and a +1 on the unread counter', () => {
    const ops = notificationOps(
      {
        userId: USER,
        notifyType: 'system',
        message: 'Bob added you to the space Plans as editor',
        url: '/space/spcAAAAAAAAAAAAAAAA',
        from: { userId: FROM, userName: 'Bob' },
      },
      NOW,
    );

    expect(ops).toHaveLength(2);
    const [put, counter] = ops as [{ put: Record<string, unknown> }, unknown];
    const id = String(put.put.id);
    expect(id).toMatch(/^not[0-9A-Za-z]{16}$/);
    expect(put).toStrictEqual({
      put: {
        pk: `USER#${USER}`,
        sk: `NOTIF#U#${id}`,
        type: 'notification',
        id,
        userId: USER,
        notifyType: 'system',
        notifyIcon: { userId: FROM, userName: 'Bob' },
        message: 'Bob added you to the space Plans as editor',
        url: '/space/spcAAAAAAAAAAAAAAAA',
        createdTime: '2026-11-22T08:15:00.000Z',
      },
    });
    expect(counter).toStrictEqual({
      update: {
        key: { pk: `USER#${USER}`, sk: 'NOTIF_COUNT' },
        update: 'SET #type = :type ADD unread :d',
        names: { '#type': 'type' },
        values: { ':type': 'notificationCounter', ':d': 1 },
      },
    });
  });

  it('a notification of the system itself has an icon without user', () => {
    const [put] = notificationOps({ userId: USER, notifyType: 'system', message: 'm', url: '/' }, NOW) as [
      { put: Record<string, unknown> },
    ];

    expect(put.put.notifyIcon).toStrictEqual({ iconUrl: null });
  });

  it('ids made later sort after ids made earlier (newest first by id)', () => {
    const idAt = (ms: number) =>
      String(
        (
          notificationOps(
            { userId: USER, notifyType: 'system', message: 'm', url: '/' },
            new Date(ms),
          )[0] as {
            put: Record<string, unknown>;
          }
        ).put.id,
      );

    expect(idAt(NOW.getTime()) < idAt(NOW.getTime() + 1)).toBe(true);
  });

  it('its operations become a Put and an Update of the same transaction', () => {
    const ops = notificationOps({ userId: USER, notifyType: 'system', message: 'm', url: '/' }, NOW);

    expect(ops.map((op) => Object.keys(toTransactItem(op)))).toStrictEqual([['Put'], ['Update']]);
  });
});

describe('toNotification', () => {
  const item = (sk: string) => ({
    pk: `USER#${USER}`,
    sk,
    id: 'notAAAAAAAAAAAAAAAA',
    userId: USER,
    notifyType: 'system',
    notifyIcon: { iconUrl: null },
    message: 'Hello',
    url: '/space/x',
    createdTime: '2026-11-22T08:15:00.000Z',
  });

  it.each([
    ['unread', keys.notification(USER, 'notAAAAAAAAAAAAAAAA', 'unread').sk, false],
    ['read', keys.notification(USER, 'notAAAAAAAAAAAAAAAA', 'read').sk, true],
  ])('an item under the %s sort key has isRead %s', (_state, sk, isRead) => {
    expect(toNotification(item(sk))).toStrictEqual({
      id: 'notAAAAAAAAAAAAAAAA',
      notifyType: 'system',
      notifyIcon: { iconUrl: null },
      message: 'Hello',
      url: '/space/x',
      isRead,
      createdTime: '2026-11-22T08:15:00.000Z',
    });
  });

  it('keeps no storage attributes (pk, sk, userId)', () => {
    expect(Object.keys(toNotification(item('NOTIF#U#notAAAAAAAAAAAAAAAA'))).sort()).toStrictEqual([
      'createdTime',
      'id',
      'isRead',
      'message',
      'notifyIcon',
      'notifyType',
      'url',
    ]);
  });

  it('an item without an icon has notifyIcon null', () => {
    const { notifyIcon: _, ...rest } = item('NOTIF#R#notAAAAAAAAAAAAAAAA');

    expect(toNotification(rest).notifyIcon).toBeNull();
  });
});

describe('unreadCountFrom', () => {
  it.each([
    ['no counter item', undefined, 0],
    ['a counter without the attribute', { pk: 'x', sk: 'NOTIF_COUNT' }, 0],
    ['a counter at 0', { unread: 0 }, 0],
    ['a counter at 3', { unread: 3 }, 3],
    ['a counter below zero', { unread: -2 }, 0],
  ])('%s → %i', (_what, counter, expected) => {
    expect(unreadCountFrom(counter)).toStrictEqual({ unreadCount: expected });
  });

  it('is never negative and equals the counter when it is not (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1_000_000, max: 1_000_000 }), (unread) => {
        const { unreadCount } = unreadCountFrom({ unread });
        expect(unreadCount).toBeGreaterThanOrEqual(0);
        expect(unreadCount).toBe(Math.max(0, unread));
      }),
    );
  });
});
