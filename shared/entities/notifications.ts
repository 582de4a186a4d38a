import { ConflictError, NotFoundError, ValidationError } from '#shared/core/errors.ts';
import {
  getItems,
  getItemsAtomically,
  type Item,
  queryPage,
  type TransactOp,
  transact,
} from '#shared/db/client.ts';
import { EXISTS } from '#shared/db/conditions.ts';
import { keyOfItem, keys, type NotificationState } from '#shared/db/keys.ts';
import { newTimeOrderedId } from '#shared/ids.ts';
import { count, text } from './attributes.ts';
import { type Lookup, lookupOf } from './batch-read.ts';

const NOTIFY_TYPES = ['system', 'collaboratorCellTag', 'collaboratorMultiRowTag'] as const;
export type NotifyType = (typeof NOTIFY_TYPES)[number];

export interface NewNotification {
  userId: string;
  notifyType: NotifyType;
  message: string;
  url: string;
  /** Who caused it, shown as the icon; absent for messages of the system itself. */
  from?: { userId: string; userName: string };
}

/** Page size of the notification list (endpoints.md). */
export const NOTIFICATIONS_PAGE = 10;

/**
 * The operations that create a notification: the item (unread) and the unread counter. Callers
 * add them to the transaction of the change that causes the notification. Pure.
 */
export const notificationOps = (n: NewNotification, now = new Date()): TransactOp[] => {
  const id = newTimeOrderedId('notification', now.getTime());
  return [
    {
      put: {
        ...keys.notification(n.userId, id, 'unread'),
        type: 'notification',
        id,
        userId: n.userId,
        notifyType: n.notifyType,
        notifyIcon: n.from ? { userId: n.from.userId, userName: n.from.userName } : { iconUrl: null },
        message: n.message,
        url: n.url,
        createdTime: now.toISOString(),
      },
    },
    counterOp(n.userId, 1),
  ];
};

const counterOp = (userId: string, delta: number): TransactOp => ({
  update: {
    key: keys.notificationCounter(userId),
    update: 'SET #type = :type ADD unread :d',
    names: { '#type': 'type' },
    values: { ':type': 'notificationCounter', ':d': delta },
  },
});

/** The public shape of a notification item. */
export const toNotification = (item: Item) => ({
  id: text(item.id),
  notifyType: NOTIFY_TYPES.find((t) => t === item.notifyType) ?? 'system',
  notifyIcon: item.notifyIcon ?? null,
  message: text(item.message),
  url: text(item.url),
  isRead: keys.notificationStateOf(text(item.sk)) === 'read',
  createdTime: text(item.createdTime),
});

/** The unread count from the counter item (read together with authentication). */
export const unreadCountFrom = (counter: Item | undefined) => ({
  unreadCount: Math.max(0, count(counter?.unread)),
});

const encodeCursor = (id: string) => Buffer.from(id).toString('base64url');
const decodeCursor = (cursor: string): string => {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^not[0-9A-Za-z]{16}$/.test(id))
    throw new ValidationError('Invalid query.cursor: not a cursor of this list');
  return id;
};

const pageOf = async (
  userId: string,
  state: NotificationState,
  afterId: string | undefined,
  limit: number,
) => {
  const { pk, skPrefix } = keys.notificationsOf(userId, state);
  const page = await queryPage({
    pk,
    skPrefix,
    limit,
    newestFirst: true,
    startKey: afterId ? { ...keys.notification(userId, afterId, state) } : undefined,
  });
  return page.items;
};

/**
 * One page of the user's notifications, newest first, optionally of one state. Ids are
 * time-ordered, so the list without a state merges the two state lists by id.
 */
export const listNotifications = async (
  userId: string,
  state: NotificationState | undefined,
  cursor?: string,
) => {
  const afterId = cursor ? decodeCursor(cursor) : undefined;
  const states: NotificationState[] = state ? [state] : ['unread', 'read'];
  const pages = await Promise.all(states.map((s) => pageOf(userId, s, afterId, NOTIFICATIONS_PAGE + 1)));
  const merged = pages
    .flat()
    .map(toNotification)
    // An item moving between the two state lists during the reads may come from both: keep one.
    .filter((n, i, all) => all.findIndex((m) => m.id === n.id) === i)
    .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  const notifications = merged.slice(0, NOTIFICATIONS_PAGE);
  // Each state list was read one past the page, so more than a page in all means more remain.
  const last = notifications.at(-1);
  return {
    notifications,
    nextCursor: merged.length > NOTIFICATIONS_PAGE && last ? encodeCursor(last.id) : null,
  };
};

/** How often a status change is retried when a concurrent change to the same item wins. */
const STATUS_ATTEMPTS = 3;

/**
 * Marks one of the user's notifications read or unread, keeping the unread counter exact. A
 * concurrent change that already reached the asked state counts as success (the call's goal
 * is met); any other race is retried, then a 409.
 */
export const setNotificationRead = async (userId: string, id: string, isRead: boolean) => {
  const unreadKey = keys.notification(userId, id, 'unread');
  const readKey = keys.notification(userId, id, 'read');
  for (let attempt = 1; ; attempt++) {
    let loaded = await getItems([unreadKey, readKey]);
    // A batch read can see a concurrent move half done (neither item): confirm with one that cannot.
    if (!loaded.get(unreadKey) && !loaded.get(readKey))
      loaded = await getItemsAtomically([unreadKey, readKey]);
    const current = loaded.get(unreadKey) ?? loaded.get(readKey);
    if (!current) throw new NotFoundError(`Notification ${id} not found`);
    const from = loaded.get(unreadKey) ? unreadKey : readKey;
    const to = isRead ? readKey : unreadKey;
    if (from.sk === to.sk) return;
    try {
      await transact(
        [
          { delete: from, condition: EXISTS },
          { put: { ...current, ...to } },
          counterOp(userId, isRead ? -1 : 1),
        ],
        () => new ConflictError(`Notification ${id} changed at the same time; retry`),
      );
      return;
    } catch (error) {
      if (!(error instanceof ConflictError) || attempt >= STATUS_ATTEMPTS) throw error;
    }
  }
};

/**
 * Marks every unread notification read, 49 a transaction (two operations each plus the
 * counter), so the counter always equals the unread items. Repeating it is harmless, and so is
 * a concurrent call: a page that lost a race is read again, without the items already moved.
 */
export const markAllRead = async (userId: string): Promise<void> => {
  const { pk, skPrefix } = keys.notificationsOf(userId, 'unread');
  let conflicts = 0;
  for (;;) {
    const page = await queryPage({ pk, skPrefix, limit: 49 });
    if (page.items.length === 0) return;
    const ops: TransactOp[] = page.items.flatMap((item): TransactOp[] => {
      const id = keys.notificationIdOf(text(item.sk));
      return [
        { delete: keys.notification(userId, id, 'unread'), condition: EXISTS },
        { put: { ...item, ...keys.notification(userId, id, 'read') } },
      ];
    });
    ops.push(counterOp(userId, -page.items.length));
    try {
      await transact(ops, () => new ConflictError('Notifications changed at the same time; retry'));
    } catch (error) {
      if (!(error instanceof ConflictError) || ++conflicts > 10) throw error;
    }
  }
};

/** The lookup of a user's unread counter, to read with authentication (`preload`); none stored is 0. Pure. */
export const unreadCountLookup = (userId: string): Lookup<ReturnType<typeof unreadCountFrom>> =>
  lookupOf(keys.notificationCounter(userId), unreadCountFrom);

/**
 * The operations that write a notification and count it, each with the operation that undoes it
 * (the item deleted, the counts moved back). Pure but for the new id.
 */
export const notificationOpsWithUndo = (
  n: NewNotification,
  now: Date,
): { op: TransactOp; undo: TransactOp }[] =>
  notificationOps(n, now).map((op) => {
    if ('put' in op) return { op, undo: { delete: keyOfItem(op.put) } };
    if ('update' in op) {
      const values = op.update.values ?? {};
      const undo: TransactOp = {
        update: { ...op.update, values: { ...values, ':d': -Number(values[':d']) } },
      };
      return { op, undo };
    }
    throw new Error('unexpected notification operation');
  });
