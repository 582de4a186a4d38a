/**
 * Every DynamoDB key of the service, and nothing else knows a key format.
 *
 * Partitions:
 * - `USER#<usr>`: the profile, the user's access tokens, a mirror item per space the user
 *   belongs to, notifications (sort key by read state, newest last) and the unread counter.
 * - `EMAIL#<lower-case email>`: claims an email for one user (uniqueness).
 * - `SPACE#<spc>`: the space and one item per collaborator.
 */
export interface Key {
  pk: string;
  sk: string;
}

export type NotificationState = 'unread' | 'read';

const NOTIFICATION_STATE_PREFIX: Record<NotificationState, string> = { unread: 'NOTIF#U#', read: 'NOTIF#R#' };

export const keys = {
  user: (userId: string): Key => ({ pk: `USER#${userId}`, sk: 'PROFILE' }),
  userEmail: (email: string): Key => ({ pk: `EMAIL#${email.toLowerCase()}`, sk: 'EMAIL' }),

  accessToken: (userId: string, tokenId: string): Key => ({ pk: `USER#${userId}`, sk: `TOKEN#${tokenId}` }),
  accessTokensOf: (userId: string) => ({ pk: `USER#${userId}`, skPrefix: 'TOKEN#' }),

  space: (spaceId: string): Key => ({ pk: `SPACE#${spaceId}`, sk: 'SPACE' }),
  member: (spaceId: string, userId: string): Key => ({ pk: `SPACE#${spaceId}`, sk: `MEMBER#${userId}` }),
  membersOf: (spaceId: string) => ({ pk: `SPACE#${spaceId}`, skPrefix: 'MEMBER#' }),
  /** Mirror of a membership in the user's partition, written in the same transaction. */
  userSpace: (userId: string, spaceId: string): Key => ({ pk: `USER#${userId}`, sk: `SPACE#${spaceId}` }),
  spacesOf: (userId: string) => ({ pk: `USER#${userId}`, skPrefix: 'SPACE#' }),
  /** Every partition that holds items of a space (what a permanent delete must empty). */
  spacePartition: (spaceId: string) => `SPACE#${spaceId}`,

  notification: (userId: string, notificationId: string, state: NotificationState): Key => ({
    pk: `USER#${userId}`,
    sk: `${NOTIFICATION_STATE_PREFIX[state]}${notificationId}`,
  }),
  notificationsOf: (userId: string, state: NotificationState) => ({
    pk: `USER#${userId}`,
    skPrefix: NOTIFICATION_STATE_PREFIX[state],
  }),
  /** The notification id from a notification item's sort key. */
  notificationIdOf: (sk: string): string => sk.slice(NOTIFICATION_STATE_PREFIX.unread.length),
  notificationCounter: (userId: string): Key => ({ pk: `USER#${userId}`, sk: 'NOTIF_COUNT' }),
} as const;
