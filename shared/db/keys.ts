/**
 * Every DynamoDB key of the service, and nothing else knows a key format.
 *
 * Partitions:
 * - `USER#<usr>`: the profile, the user's access tokens, a mirror item per space the user
 *   belongs to, notifications (sort key by read state, newest last) and the unread counter, and
 *   the user's pins (`PIN#<space or base>#<id>`: the pinned thing and its place in the list).
 * - `EMAIL#<lower-case email>`: claims an email for one user (uniqueness).
 * - `LOGIN#<usr>`: how the user signs in: the password's hash (`PASSWORD`) and one item per
 *   session (`SESSION#<hash of the cookie's secret>`: user, times, expiry; TTL). Only the auth
 *   routes write it (IAM: `loginPartitionPattern`).
 * - `LOGINTRY#<email or address>`: failed sign-ins of one email (`EMAIL#…`) or one client address
 *   (`ADDR#…`) in the current window, and the lock they earned (TTL).
 * - `SPACE#<spc>`: the space, one item per collaborator, one reference per base (name kept in step).
 * - `BASE#<bse>`: the base, one reference per table, the project nodes (`NODE#<nod>`), the
 *   dashboards (`DASH#<dsh>`) and their plugin installs (`DASH#<dsh>#PLI#<pli>`); one query of
 *   the partition reads the whole sidebar tree.
 * - `TABLE#<tbl>`: the table, its fields and its views (the schema, read in one query), the
 *   table's plugin context menu (`MENU#<pli>`, ordered by a fractional key attribute), and its
 *   record count (`COUNT#base` and `COUNT#<nn>` shards that writes add to), and its data version
 *   (`DVER#<nn>` shards that every write of its records adds to).
 * - `PLUGIN#<plg>`: a plugin (the record of truth).
 * - `PLUGINS#published`: a copy of every published plugin, for listing; the creator's own plugins
 *   are copied into `USER#<usr>` (`PLUGIN#<plg>`).
 * - `RECORDS#<tbl>`: the records, keyed by record id.
 * - `QORDER#<tbl>`: computed listing orders kept for later pages (`<query hash>#H` holds the
 *   totals and group points, `<query hash>#<nn>` the ids in chunks; 1 h TTL).
 * - `RECNUM#<tbl>`: one small index item per record, keyed by autoNumber (default order).
 * - `VORDER#<viw>`: a view's manual order, keyed by fractional order key.
 * - `UNIQ#<tbl>`: one item per value of a `unique` field, claiming it for a record.
 * - `EXPORT#<tbl>`: an export too large for one request, written by the worker (`<view>#<usr>`:
 *   its state, what it was computed from, and the file; 1 day TTL, as the file's).
 * - `QUERY#<qry_…>`: saved listing parameters (`POST /query-params`, 24 h TTL), one item each.
 * - `IDEM#<usr>`: remembered answers of requests with an `Idempotency-Key` (24 h TTL) on routes
 *   that act on no table; `IDEM#<tbl>` (sort key led by the user id) those of table routes, so a
 *   table's permanent delete empties them with the table.
 * - `TRASH#<trs>`: a trash item, read by its id alone. Its listing copy lives in the parent's
 *   partition: `SPACE#<spc>` `TRASH#<trs>` for a trashed base, `BASE#<bse>` `TRASH#<trs>` for a
 *   trashed table (trash ids are time-ordered, so the sort key orders by deletion time). Trashed
 *   spaces are found from the user's space mirrors (the space item carries `trashId`).
 * - `PURGE`: one item per job the purge worker has not finished (`<kind>#<id>`): permanent
 *   deletes, and renamed users whose name the records must follow.
 * - `TXN#<scope>`: the journal of writes larger than one transaction in a scope, while they apply.
 * - `TXNHEAD`: one head per such write while it applies (`<scope>#<txn>`: state and lease).
 * - `ORG#<org>`: an organization (with its admins' ids) and one `DOMAIN#<domain>` item per domain
 *   it added (status, the verification code's hash and salt, expiry, wrong attempts, last mail).
 * - `DOMAIN#<domain>`: claims a verified domain for the one organization that verified it.
 * - `HOOKS#<bse>`: the base's webhooks (`<whk>`: settings, secrets, where delivery got to).
 * - `HOOKLOG#<whk>`: a webhook's delivery attempts (`<dlv…>`, time-ordered; 30 days TTL).
 * - `HOOKRETRY`: one item per webhook waiting to try a delivery again (`<whk>`: when, which base).
 * - `LIVECONN#<connection>`: a live WebSocket connection of the cloud (who, which token; TTL).
 * - `LIVESUB#<bse>`: what the base's live connections follow (`<connection>#<base or table>`; TTL).
 * - `UNDO#<usr>`: the user's undo and redo stacks, one item per table and window
 *   (`<tbl>#<window>`: the requests to undo and to redo, in order; TTL a day).
 * - `SOCKCONN#<connection>`: a realtime socket connection of the cloud (`/socket`: its kept
 *   credential and the state of its ShareDB session; TTL).
 * - `SOCKTOPIC#<collection or channel>`: the cloud socket connections that hold docs of a
 *   collection or follow a presence channel (`<connection>`; TTL).
 * - `LOG#<bse>`: the base's change log: `HEAD` (the last `seq` given) and one entry per change,
 *   `SEQ#<seq, 12 digits>` (TTL: the retention).
 * - `LOGSRC#<source>`: which change-log entry a source event (a stream record) became, so a
 *   source handed over twice is written once (TTL: the retention).
 * - `HIST#<tbl>` and `HIST#<tbl>#<rec>`: record history (Teable's routes), one item per changed
 *   field of a caller's update, in the table's and in the record's partition, sorted by time
 *   (`<occurredAt>#<evt…>#<fld…>`; TTL: the change log's retention).
 * - `ATT#<token>`: an uploaded file (`ATT`): its state (pending until notified), path, size, type,
 *   uploader and base (TTL while pending).
 * - `DELJ#<bse>`: record deletions the change-log capture is joining (`<tbl>#<rec>`): the removed
 *   record's last cells from its stream record and the deletion note (who, which request) from
 *   the table's data version, which may reach the processor in either order (TTL: a day).
 */
export interface Key {
  pk: string;
  sk: string;
}

export type NotificationState = 'unread' | 'read';

/** The key of a stored item (every item carries its own `pk` and `sk`). */
export const keyOfItem = (item: { pk?: unknown; sk?: unknown }): Key => ({
  pk: typeof item.pk === 'string' ? item.pk : '',
  sk: typeof item.sk === 'string' ? item.sk : '',
});

const NOTIFICATION_STATE_PREFIX: Record<NotificationState, string> = { unread: 'NOTIF#U#', read: 'NOTIF#R#' };

/** A view index id `<view>:<hash>` in its parts. */
const splitIndexId = (indexId: string): { viewId: string; hash: string } => {
  const at = indexId.indexOf(':');
  return { viewId: indexId.slice(0, at), hash: indexId.slice(at + 1) };
};

export const keys = {
  user: (userId: string): Key => ({ pk: `USER#${userId}`, sk: 'PROFILE' }),
  /** IAM's pattern for every user partition (tokens live there). */
  userPartitionPattern: 'USER#*',
  changeLogHead: (baseId: string): Key => ({ pk: `LOG#${baseId}`, sk: 'HEAD' }),
  changeEntry: (baseId: string, seq: number): Key => ({
    pk: `LOG#${baseId}`,
    sk: `SEQ#${String(seq).padStart(12, '0')}`,
  }),
  /** The partition of a base's change log; entries sort by `seq` (the head sorts before them). */
  changeLogOf: (baseId: string) => ({ pk: `LOG#${baseId}`, skPrefix: 'SEQ#' }),
  changeSource: (sourceId: string): Key => ({ pk: `LOGSRC#${sourceId}`, sk: 'SRC' }),
  tableHistory: (tableId: string, sk: string): Key => ({ pk: `HIST#${tableId}`, sk }),
  recordHistory: (tableId: string, recordId: string, sk: string): Key => ({
    pk: `HIST#${tableId}#${recordId}`,
    sk,
  }),
  /** The history partition of a table, or of one of its records. */
  historyOf: (tableId: string, recordId?: string) => ({
    pk: recordId === undefined ? `HIST#${tableId}` : `HIST#${tableId}#${recordId}`,
  }),
  /** An uploaded file (`entities/attachments.ts`), by its token. */
  attachment: (token: string): Key => ({ pk: `ATT#${token}`, sk: 'ATT' }),
  /** A record whose cells hold a file (`entities/attachment-references.ts`), in the file's partition. */
  attachmentReference: (token: string, tableId: string, recordId: string): Key => ({
    pk: `ATTREF#${token}`,
    sk: `${tableId}#${recordId}`,
  }),
  attachmentReferencesOf: (token: string) => ({ pk: `ATTREF#${token}` }),
  /** A file no cell holds, due for release (`entities/file-releases.ts`): one of a few shards, by due time. */
  fileRelease: (shard: number, dueTime: string, token: string): Key => ({
    pk: `FREL#${shard}`,
    sk: `${dueTime}#${token}`,
  }),
  fileReleasesOf: (shard: number) => ({ pk: `FREL#${shard}` }),
  recordDeletion: (baseId: string, tableId: string, recordId: string): Key => ({
    pk: `DELJ#${baseId}`,
    sk: `${tableId}#${recordId}`,
  }),
  recordDeletionsOf: (baseId: string) => ({ pk: `DELJ#${baseId}` }),
  userEmail: (email: string): Key => ({ pk: `EMAIL#${email.toLowerCase()}`, sk: 'EMAIL' }),
  /** The user's password hash (`entities/passwords.ts`). */
  password: (userId: string): Key => ({ pk: `LOGIN#${userId}`, sk: 'PASSWORD' }),
  /** A session (`entities/sessions.ts`), by the hash of its secret. */
  session: (userId: string, secretHash: string): Key => ({
    pk: `LOGIN#${userId}`,
    sk: `SESSION#${secretHash}`,
  }),
  /** IAM's pattern for every login partition: only the auth routes write there. */
  loginPartitionPattern: 'LOGIN#*',
  /** Failed sign-ins of one email or one client address (`entities/sign-in-attempts.ts`). */
  signInAttempts: (kind: 'email' | 'address', value: string): Key => ({
    pk: `LOGINTRY#${kind === 'email' ? 'EMAIL' : 'ADDR'}#${value.toLowerCase()}`,
    sk: 'TRY',
  }),
  signInAttemptsPartitionPattern: 'LOGINTRY#*',

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
  /** The read state a notification item's sort key files it under. */
  notificationStateOf: (sk: string): NotificationState =>
    sk.startsWith(NOTIFICATION_STATE_PREFIX.read) ? 'read' : 'unread',
  notificationCounter: (userId: string): Key => ({ pk: `USER#${userId}`, sk: 'NOTIF_COUNT' }),

  /** A space or base the user pinned (`entities/pins.ts`), in the user's partition. */
  pin: (userId: string, type: 'space' | 'base', resourceId: string): Key => ({
    pk: `USER#${userId}`,
    sk: `PIN#${type}#${resourceId}`,
  }),
  pinsOf: (userId: string) => ({ pk: `USER#${userId}`, skPrefix: 'PIN#' }),

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

  // Dashboards and their plugin installs (shared/dashboards/*), in the base's partition
  dashboard: (baseId: string, dashboardId: string): Key => ({
    pk: `BASE#${baseId}`,
    sk: `DASH#${dashboardId}`,
  }),
  /** A dashboard and its plugin installs (ids have a fixed length: the prefix matches no other dashboard). */
  dashboardWithPlugins: (baseId: string, dashboardId: string) => ({
    pk: `BASE#${baseId}`,
    skPrefix: `DASH#${dashboardId}`,
  }),
  /** One plugin installed on a dashboard (holds the plugin id, its name and its layout box). */
  dashboardPlugin: (baseId: string, dashboardId: string, pluginInstallId: string): Key => ({
    pk: `BASE#${baseId}`,
    sk: `DASH#${dashboardId}#PLI#${pluginInstallId}`,
  }),

  table: (tableId: string): Key => ({ pk: `TABLE#${tableId}`, sk: 'TABLE' }),
  /** A base's reference to one of its tables, for listing. */
  baseTable: (baseId: string, tableId: string): Key => ({ pk: `BASE#${baseId}`, sk: `TABLE#${tableId}` }),
  tablesOf: (baseId: string) => ({ pk: `BASE#${baseId}`, skPrefix: 'TABLE#' }),
  /** The schema partition: the table item, `FIELD#…` and `VIEW#…`. */
  schemaOf: (tableId: string) => ({ pk: `TABLE#${tableId}` }),
  field: (tableId: string, fieldId: string): Key => ({ pk: `TABLE#${tableId}`, sk: `FIELD#${fieldId}` }),
  view: (tableId: string, viewId: string): Key => ({ pk: `TABLE#${tableId}`, sk: `VIEW#${viewId}` }),
  /**
   * In a table's schema partition: a computed field of another table (or this one) that reads
   * this table's records through a link (a lookup, a rollup, a formula over link titles).
   */
  dependent: (tableId: string, dependentTableId: string, fieldId: string, linkFieldId: string): Key => ({
    pk: `TABLE#${tableId}`,
    sk: `DEP#${dependentTableId}#${fieldId}#${linkFieldId}`,
  }),

  /** One shard of a table's record count (`base`: written with the table, 0). */
  recordCount: (tableId: string, shard: string): Key => ({ pk: `TABLE#${tableId}`, sk: `COUNT#${shard}` }),
  recordCountsOf: (tableId: string) => ({ pk: `TABLE#${tableId}`, skPrefix: 'COUNT#' }),
  /** One shard of a table's data version (see `db/data-versions.ts`). */
  dataVersion: (tableId: string, shard: string): Key => ({ pk: `TABLE#${tableId}`, sk: `DVER#${shard}` }),
  dataVersionsOf: (tableId: string) => ({ pk: `TABLE#${tableId}`, skPrefix: 'DVER#' }),
  /** The table whose data version a key addresses, or undefined for any other key. */
  tableOfDataVersionKey: (key: Key): string | undefined =>
    key.pk.startsWith('TABLE#') && key.sk.startsWith('DVER#') ? key.pk.slice('TABLE#'.length) : undefined,
  /** The table whose records a key addresses, or undefined for any other key. */
  tableOfRecordKey: (key: Key): string | undefined =>
    key.pk.startsWith('RECORDS#') ? key.pk.slice('RECORDS#'.length) : undefined,
  /** The record a record key addresses (its sort key is the record's id). */
  recordOfRecordKey: (key: Key): string | undefined => (key.pk.startsWith('RECORDS#') ? key.sk : undefined),
  /** The table and the kind of a schema item's key (table, field, view), or undefined for any other key. */
  /** The id of the field or view a schema item's key addresses. */
  schemaItemIdOfKey: (key: Key): string | undefined =>
    key.pk.startsWith('TABLE#') && (key.sk.startsWith('FIELD#') || key.sk.startsWith('VIEW#'))
      ? key.sk.slice(key.sk.indexOf('#') + 1)
      : undefined,
  schemaItemOfKey: (key: Key): { tableId: string; kind: 'table' | 'field' | 'view' } | undefined => {
    if (!key.pk.startsWith('TABLE#')) return undefined;
    const tableId = key.pk.slice('TABLE#'.length);
    if (key.sk === 'TABLE') return { tableId, kind: 'table' };
    if (key.sk.startsWith('FIELD#')) return { tableId, kind: 'field' };
    if (key.sk.startsWith('VIEW#')) return { tableId, kind: 'view' };
    return undefined;
  },
  /** Whether a key addresses a view index's entry, split bounds or group count. */
  isViewIndexKey: (key: Key): boolean => key.pk.startsWith('VIDX#') || key.pk.startsWith('VGRP#'),
  /** A computed listing order's header (`H`) or one of its chunks of ids. */
  queryOrder: (tableId: string, hash: string, part: string): Key => ({
    pk: `QORDER#${tableId}`,
    sk: `${hash}#${part}`,
  }),
  queryOrdersOf: (tableId: string) => ({ pk: `QORDER#${tableId}` }),
  /** Where a view index's entry at `position` is (a listing notes it for the next page to start there). */
  viewIndexPosition: (tableId: string, indexId: string, position: number): Key => ({
    pk: `QORDER#${tableId}`,
    sk: `IXPOS#${indexId}#${String(position).padStart(12, '0')}`,
  }),
  /** IAM's pattern for the kept orders (the listing routes write them). */
  queryOrderPartitionPattern: 'QORDER#*',
  /** A listing order handed to the worker to compute (`entities/query-computations.ts`), beside its kept order. */
  queryComputation: (tableId: string, hash: string): Key => ({ pk: `QORDER#${tableId}`, sk: `${hash}#C` }),
  /** A computed segment's part: run, segment, attempt and part in the sort key. */
  queryComputationPart: (
    tableId: string,
    hash: string,
    run: string,
    segment: number,
    attempt: string,
    part: number,
  ): Key => ({
    pk: `QORDER#${tableId}`,
    sk: `${hash}#R${run}#${String(segment).padStart(4, '0')}#${attempt}#${String(part).padStart(3, '0')}`,
  }),
  /** The prefix of every part of a computation's run. */
  queryComputationParts: (tableId: string, hash: string, run: string) => ({
    pk: `QORDER#${tableId}`,
    skPrefix: `${hash}#R${run}#`,
  }),
  /** The segment and attempt of a computation part's sort key (`queryComputationPart`), read under the run's prefix. */
  queryComputationPartOf: (sk: string, prefix: string): { segment: number; attempt: string } => {
    const [segment, attempt] = sk.slice(prefix.length).split('#');
    return { segment: Number(segment), attempt: attempt ?? '' };
  },
  /** The size at which a table's ad-hoc listings ran out of time in a request (they go to the worker). */
  slowListings: (tableId: string): Key => ({ pk: `QORDER#${tableId}`, sk: 'SLOW' }),
  /** The worker's list of computations asked for. */
  queryComputationWant: (tableId: string, hash: string): Key => ({
    pk: 'QCOMPWANT',
    sk: `${tableId}#${hash}`,
  }),
  queryComputationWants: () => ({ pk: 'QCOMPWANT' }),
  /** IAM's pattern for the computation asks (the listing routes write them). */
  queryComputationWantPartitionPattern: 'QCOMPWANT',
  /**
   * An entry of a view index (`<view>:<hash of its query>`): every index of a view lives in one
   * partition per view (`VIDX#<view>`, sort key `<hash>#<order key>`), so deleting the view or its
   * table deletes them all, built or not.
   */
  viewIndexEntry: (indexId: string, sortKey: string): Key => {
    const { viewId, hash } = splitIndexId(indexId);
    return { pk: `VIDX#${viewId}`, sk: `${hash}#${sortKey}` };
  },
  /**
   * Keys of an index's entries noted to split its reads (`IndexSplits`): in its entries'
   * partition, before them (`!` sorts before `#`), deleted with them.
   */
  viewIndexSplits: (indexId: string): Key => {
    const { viewId, hash } = splitIndexId(indexId);
    return { pk: `VIDX#${viewId}`, sk: `${hash}!splits` };
  },
  /**
   * A sort-key bound just below `sortKey` for an inclusive range read (DynamoDB's key condition has
   * no "below"): every key of printable ASCII below it is at most this, and none equals it (DEL
   * ends it). For sort keys of printable ASCII only (index entries).
   */
  justBelow: (sortKey: string): string =>
    `${sortKey.slice(0, -1)}${String.fromCharCode(sortKey.charCodeAt(sortKey.length - 1) - 1)}\x7f`,
  viewIndexEntriesOf: (indexId: string) => {
    const { viewId, hash } = splitIndexId(indexId);
    return { pk: `VIDX#${viewId}`, skPrefix: `${hash}#` };
  },
  /** The order key of an entry item of an index (its sort key less the index's hash). */
  orderKeyOfIndexEntry: (indexId: string, sk: string): string =>
    sk.slice(splitIndexId(indexId).hash.length + 1),
  /** The partitions of every index of a view: its entries and its group counts. */
  viewIndexPartitionsOf: (viewId: string): string[] => [`VIDX#${viewId}`, `VGRP#${viewId}`],
  /** One shard of the count of a group tuple of a grouped view index (`<hash>#<hash of the group key>#<nn>`). */
  viewGroupCounter: (indexId: string, groupHash: string, shard: string): Key => {
    const { viewId, hash } = splitIndexId(indexId);
    return { pk: `VGRP#${viewId}`, sk: `${hash}#${groupHash}#${shard}` };
  },
  viewGroupCountersOf: (indexId: string) => {
    const { viewId, hash } = splitIndexId(indexId);
    return { pk: `VGRP#${viewId}`, skPrefix: `${hash}#` };
  },
  /** The count shards of one group tuple of an index. */
  viewGroupCountersOfTuple: (indexId: string, groupHash: string) => {
    const { viewId, hash } = splitIndexId(indexId);
    return { pk: `VGRP#${viewId}`, skPrefix: `${hash}#${groupHash}#` };
  },
  /** Which index a view has built, and the unmaintained-write count it was exact at. */
  viewIndexState: (tableId: string, viewId: string): Key => ({
    pk: `TABLE#${tableId}`,
    sk: `VIDXSTATE#${viewId}`,
  }),
  /** A view index build under way: how far it got (`records/view-indexes/build.ts`). */
  viewIndexBuild: (tableId: string, viewId: string): Key => ({
    pk: `TABLE#${tableId}`,
    sk: `VIDXBUILD#${viewId}`,
  }),
  /** A view index a listing asked to have built (the repair worker builds them). */
  viewIndexWant: (tableId: string, viewId: string): Key => ({ pk: 'VIDXWANT', sk: `${tableId}#${viewId}` }),
  viewIndexWants: () => ({ pk: 'VIDXWANT' }),
  /** IAM's pattern for the build requests (the listing routes write them). */
  viewIndexWantPartitionPattern: 'VIDXWANT',

  // Plugins and plugin context menus (shared/plugins/*)
  plugin: (pluginId: string): Key => ({ pk: `PLUGIN#${pluginId}`, sk: 'PLUGIN' }),
  /** The listing copy of a published plugin. */
  publishedPlugin: (pluginId: string): Key => ({ pk: 'PLUGINS#published', sk: `PLUGIN#${pluginId}` }),
  publishedPlugins: () => ({ pk: 'PLUGINS#published', skPrefix: 'PLUGIN#' }),
  /** The listing copy of a plugin in its creator's partition. */
  userPlugin: (userId: string, pluginId: string): Key => ({ pk: `USER#${userId}`, sk: `PLUGIN#${pluginId}` }),
  pluginsOf: (userId: string) => ({ pk: `USER#${userId}`, skPrefix: 'PLUGIN#' }),
  /** One entry of a table's plugin context menu, in the table's schema partition (purged with it). */
  contextMenuItem: (tableId: string, pluginInstallId: string): Key => ({
    pk: `TABLE#${tableId}`,
    sk: `MENU#${pluginInstallId}`,
  }),
  contextMenuOf: (tableId: string) => ({ pk: `TABLE#${tableId}`, skPrefix: 'MENU#' }),

  record: (tableId: string, recordId: string): Key => ({ pk: `RECORDS#${tableId}`, sk: recordId }),
  recordsOf: (tableId: string) => ({ pk: `RECORDS#${tableId}` }),
  /** The default-order index entry of a record (autoNumber padded so text order is number order). */
  recordNumber: (tableId: string, autoNumber: number): Key => ({
    pk: `RECNUM#${tableId}`,
    sk: String(autoNumber).padStart(12, '0'),
  }),
  recordNumbersOf: (tableId: string) => ({ pk: `RECNUM#${tableId}` }),
  viewOrder: (viewId: string, orderKey: string): Key => ({ pk: `VORDER#${viewId}`, sk: orderKey }),
  /** A record's entry in a view's manual order: its order key, then its id. */
  viewOrderEntry: (viewId: string, orderKey: string, recordId: string): Key =>
    keys.viewOrder(viewId, `${orderKey}#${recordId}`),
  /** The order key of a manual-order entry's sort key. */
  orderKeyOfEntry: (sk: string): string => sk.slice(0, sk.indexOf('#')),
  /** The autoNumber of a default-order entry's sort key. */
  autoNumberOfEntry: (sk: string): number => Number(sk),
  viewOrderOf: (viewId: string) => ({ pk: `VORDER#${viewId}` }),

  /** Claims a value of a `unique` field for one record. */
  uniqueValue: (tableId: string, fieldId: string, value: string): Key => ({
    pk: `UNIQ#${tableId}`,
    sk: `${fieldId}#${value}`,
  }),
  uniqueValuesOf: (tableId: string) => ({ pk: `UNIQ#${tableId}` }),
  /** The claims of one field's values. */
  uniqueValuesOfField: (tableId: string, fieldId: string) => ({
    pk: `UNIQ#${tableId}`,
    skPrefix: `${fieldId}#`,
  }),
  /** An upsert's short lease on a key it creates a record for (`entities/upsert-leases.ts`). */
  upsertLease: (tableId: string, keyHash: string): Key => ({ pk: `UPSERT#${tableId}`, sk: keyHash }),
  upsertLeasesOf: (tableId: string) => ({ pk: `UPSERT#${tableId}` }),

  /** A large export's file, per table, view (`-` for the whole table) and user (`entities/export-files.ts`). */
  exportFile: (tableId: string, viewKey: string, userId: string): Key => ({
    pk: `EXPORT#${tableId}`,
    sk: `${viewKey}#${userId}`,
  }),
  exportFilesOf: (tableId: string) => ({ pk: `EXPORT#${tableId}` }),
  exportFilePartitionPattern: 'EXPORT#*',
  purgeJobPartition: 'PURGE',

  /** A remembered answer: in the table's partition for a table route, else in the user's. */
  // Saved listing parameters (shared/listing/saved-queries.ts)
  /** Parameters saved by `POST /query-params`, used by `GET …/record?queryId=` (24 h TTL). */
  savedQuery: (queryId: string): Key => ({ pk: `QUERY#${queryId}`, sk: 'QUERY' }),

  idempotency: (userId: string, route: string, key: string, tableId?: string): Key =>
    tableId
      ? { pk: `IDEM#${tableId}`, sk: `${userId}#${route}#${key}` }
      : { pk: `IDEM#${userId}`, sk: `${route}#${key}` },
  /** Part 1, 2… of a remembered answer too large for the key's own item (routes never start `PART`). */
  idempotencyPart: (userId: string, route: string, key: string, part: number, tableId?: string): Key =>
    tableId
      ? { pk: `IDEM#${tableId}`, sk: `PART#${userId}#${route}#${key}#${part}` }
      : { pk: `IDEM#${userId}`, sk: `PART#${route}#${key}#${part}` },
  /** Every remembered answer of a table's routes (emptied by the table's permanent delete). */
  idempotencyOfTable: (tableId: string) => ({ pk: `IDEM#${tableId}` }),
  /** One chunk of the journal of a write larger than one transaction, in a scope (a table). */
  journal: (scope: string, txnId: string, chunk: number): Key => ({
    pk: `TXN#${scope}`,
    sk: `${txnId}#${String(chunk).padStart(4, '0')}`,
  }),
  journalsOf: (scope: string) => ({ pk: `TXN#${scope}` }),
  /**
   * The head of a journaled write while it applies (state, the writer's lease, the scope), all in
   * one partition so the repair worker finds every open write with one query.
   */
  txnHead: (scope: string, txnId: string): Key => ({ pk: 'TXNHEAD', sk: `${scope}#${txnId}` }),
  /** Every open journaled write (or those of one scope, with the prefix `<scope>#`). */
  txnHeads: () => ({ pk: 'TXNHEAD' }),

  // Trash and permanent deletes (shared/trash/*)
  /** A trash item, found by its id in one read (restore, DELETE /trash/{trashId}). */
  trashItem: (trashId: string): Key => ({ pk: `TRASH#${trashId}`, sk: 'TRASH' }),
  /** The listing copy of a trashed base, in its space's partition. */
  spaceTrash: (spaceId: string, trashId: string): Key => ({ pk: `SPACE#${spaceId}`, sk: `TRASH#${trashId}` }),
  spaceTrashOf: (spaceId: string) => ({ pk: `SPACE#${spaceId}`, skPrefix: 'TRASH#' }),
  /** The listing copy of a trashed table, in its base's partition. */
  baseTrash: (baseId: string, trashId: string): Key => ({ pk: `BASE#${baseId}`, sk: `TRASH#${trashId}` }),
  baseTrashOf: (baseId: string) => ({ pk: `BASE#${baseId}`, skPrefix: 'TRASH#' }),
  /** A job the purge worker has not finished (a permanent delete, a rename); one partition, so unfinished jobs can be listed. */
  purgeJob: (
    kind: 'space' | 'base' | 'table' | 'userCells' | 'thumbnails' | 'import' | 'export',
    resourceId: string,
  ): Key => ({
    pk: 'PURGE',
    sk: `${kind}#${resourceId}`,
  }),
  purgeJobs: () => ({ pk: 'PURGE' }),
  /** A job the purge worker finished: kept a week (TTL) so its starter can read that it is done. */
  finishedJob: (
    kind: 'space' | 'base' | 'table' | 'userCells' | 'thumbnails' | 'import' | 'export',
    resourceId: string,
  ): Key => ({
    pk: `JOB#${kind}#${resourceId}`,
    sk: 'DONE',
  }),

  // Webhooks (shared/webhooks/*): each base's in one partition (at most 20), each one's delivery
  // attempts in its own (time-ordered ids, newest first), and the webhooks waiting to retry.
  webhook: (baseId: string, webhookId: string): Key => ({ pk: `HOOKS#${baseId}`, sk: webhookId }),
  webhooksOf: (baseId: string) => ({ pk: `HOOKS#${baseId}` }),
  webhookDelivery: (webhookId: string, deliveryId: string): Key => ({
    pk: `HOOKLOG#${webhookId}`,
    sk: deliveryId,
  }),
  webhookDeliveriesOf: (webhookId: string) => ({ pk: `HOOKLOG#${webhookId}` }),
  webhookRetry: (webhookId: string): Key => ({ pk: 'HOOKRETRY', sk: webhookId }),
  webhookRetries: () => ({ pk: 'HOOKRETRY' }),

  // Live subscriptions in the cloud (entities/live-connections.ts): a WebSocket connection, and
  // each base or table it follows in the base's partition (the fan-out reads one partition).
  liveConnection: (connectionId: string): Key => ({ pk: `LIVECONN#${connectionId}`, sk: 'CONN' }),
  liveSubscription: (baseId: string, connectionId: string, target: string): Key => ({
    pk: `LIVESUB#${baseId}`,
    sk: `${connectionId}#${target}`,
  }),
  liveSubscriptionsOf: (baseId: string) => ({ pk: `LIVESUB#${baseId}` }),

  // Undo and redo (entities/undo-stacks.ts): a user's stacks for a table in a window (a browser tab).
  undoStack: (userId: string, tableId: string, windowId: string): Key => ({
    pk: `UNDO#${userId}`,
    sk: `${tableId}#${windowId}`,
  }),

  // The realtime socket in the cloud (entities/socket-connections.ts): a connection with its
  // session's state, and each collection or presence channel it follows (the fan-out reads one
  // partition a collection).
  socketConnection: (connectionId: string): Key => ({ pk: `SOCKCONN#${connectionId}`, sk: 'CONN' }),
  socketTopic: (topic: string, connectionId: string): Key => ({ pk: `SOCKTOPIC#${topic}`, sk: connectionId }),
  socketTopicOf: (topic: string) => ({ pk: `SOCKTOPIC#${topic}` }),

  // Organizations and domain verification (shared/organizations/*)
  organization: (orgId: string): Key => ({ pk: `ORG#${orgId}`, sk: 'ORG' }),
  /** A domain an organization added (lower-case, normalised hostname). */
  orgDomain: (orgId: string, domain: string): Key => ({ pk: `ORG#${orgId}`, sk: `DOMAIN#${domain}` }),
  orgDomainsOf: (orgId: string) => ({ pk: `ORG#${orgId}`, skPrefix: 'DOMAIN#' }),
  /** The organization holding a domain verified (at most one). */
  domainClaim: (domain: string): Key => ({ pk: `DOMAIN#${domain}`, sk: 'CLAIM' }),
} as const;
