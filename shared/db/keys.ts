/**
 * Every DynamoDB key of the service, and nothing else knows a key format.
 *
 * Partitions:
 * - `USER#<usr>`: the profile, the user's access tokens, a mirror item per space the user
 *   belongs to, notifications (sort key by read state, newest last) and the unread counter.
 * - `EMAIL#<lower-case email>`: claims an email for one user (uniqueness).
 * - `SPACE#<spc>`: the space, one item per collaborator, one reference per base (name kept in step).
 * - `BASE#<bse>`: the base and one reference per table.
 * - `TABLE#<tbl>`: the table, its fields and its views (the schema, read in one query).
 * - `RECORDS#<tbl>`: the records, keyed by record id.
 * - `RECNUM#<tbl>`: one small index item per record, keyed by autoNumber (default order).
 * - `VORDER#<viw>`: a view's manual order, keyed by fractional order key.
 * - `UNIQ#<tbl>`: one item per value of a `unique` field, claiming it for a record.
 * - `IDEM#<usr>`: remembered answers of requests with an `Idempotency-Key` (24 h TTL).
 * - `TXN#<scope>`: the journal of writes larger than one transaction in a scope, while they apply.
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

  base: (baseId: string): Key => ({ pk: `BASE#${baseId}`, sk: 'BASE' }),
  /** A space's reference to one of its bases, for listing (kept in step with the base's name). */
  spaceBase: (spaceId: string, baseId: string): Key => ({ pk: `SPACE#${spaceId}`, sk: `BASE#${baseId}` }),
  basesOf: (spaceId: string) => ({ pk: `SPACE#${spaceId}`, skPrefix: 'BASE#' }),
  basePartition: (baseId: string) => `BASE#${baseId}`,

  /**
   * A project node of a base's sidebar tree. Everything a base owns (nodes, dashboards, their
   * plugin installs) lives in the base's partition, so a base's permanent delete takes it along.
   */
  node: (baseId: string, nodeId: string): Key => ({ pk: `BASE#${baseId}`, sk: `NODE#${nodeId}` }),
  nodesOf: (baseId: string) => ({ pk: `BASE#${baseId}`, skPrefix: 'NODE#' }),

  table: (tableId: string): Key => ({ pk: `TABLE#${tableId}`, sk: 'TABLE' }),
  /** A base's reference to one of its tables, for listing. */
  baseTable: (baseId: string, tableId: string): Key => ({ pk: `BASE#${baseId}`, sk: `TABLE#${tableId}` }),
  tablesOf: (baseId: string) => ({ pk: `BASE#${baseId}`, skPrefix: 'TABLE#' }),
  /** The schema partition: the table item, `FIELD#…` and `VIEW#…`. */
  schemaOf: (tableId: string) => ({ pk: `TABLE#${tableId}` }),
  field: (tableId: string, fieldId: string): Key => ({ pk: `TABLE#${tableId}`, sk: `FIELD#${fieldId}` }),
  view: (tableId: string, viewId: string): Key => ({ pk: `TABLE#${tableId}`, sk: `VIEW#${viewId}` }),

  record: (tableId: string, recordId: string): Key => ({ pk: `RECORDS#${tableId}`, sk: recordId }),
  recordsOf: (tableId: string) => ({ pk: `RECORDS#${tableId}` }),
  /** The default-order index entry of a record (autoNumber padded so text order is number order). */
  recordNumber: (tableId: string, autoNumber: number): Key => ({
    pk: `RECNUM#${tableId}`,
    sk: String(autoNumber).padStart(12, '0'),
  }),
  recordNumbersOf: (tableId: string) => ({ pk: `RECNUM#${tableId}` }),
  viewOrder: (viewId: string, orderKey: string): Key => ({ pk: `VORDER#${viewId}`, sk: orderKey }),
  viewOrderOf: (viewId: string) => ({ pk: `VORDER#${viewId}` }),

  /** Claims a value of a `unique` field for one record. */
  uniqueValue: (tableId: string, fieldId: string, value: string): Key => ({
    pk: `UNIQ#${tableId}`,
    sk: `${fieldId}#${value}`,
  }),
  uniqueValuesOf: (tableId: string) => ({ pk: `UNIQ#${tableId}` }),

  idempotency: (userId: string, route: string, key: string): Key => ({
    pk: `IDEM#${userId}`,
    sk: `${route}#${key}`,
  }),
  /** Part 1, 2… of a remembered answer too large for the key's own item (routes never start `PART`). */
  idempotencyPart: (userId: string, route: string, key: string, part: number): Key => ({
    pk: `IDEM#${userId}`,
    sk: `PART#${route}#${key}#${part}`,
  }),
  /** One chunk of the journal of a write larger than one transaction, in a scope (a table). */
  journal: (scope: string, txnId: string, chunk: number): Key => ({
    pk: `TXN#${scope}`,
    sk: `${txnId}#${String(chunk).padStart(4, '0')}`,
  }),
  journalsOf: (scope: string) => ({ pk: `TXN#${scope}` }),
} as const;
