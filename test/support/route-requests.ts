import { putDeliveries } from '#shared/entities/webhook-deliveries.ts';
import { newTimeOrderedId, randomBase62 } from '#shared/ids.ts';
import type { HandlerName } from '#shared/routes.ts';
import { signAndPut, uploadFile, uploadForm } from './attachments.ts';
import { newUser } from './fixtures.ts';
import { type CallOptions, call } from './invoke.ts';
import { latestCode } from './outbox.ts';

/**
 * One request for every route of the route table (keyed by its handler, the route's id in
 * `shared/routes.ts`), made from the ids of a world (`newWorld`): what the route matrix (401, 403,
 * 404, documented answers) and the role matrix (each role on every table route) send. The owner's
 * call of a route succeeds with `requestFor`; `REQUESTS` alone is the request its ids make, which
 * for the few routes in `PREPARED` is refused only after the access checks (an upload that was
 * never made, a notification that does not exist).
 */

type User = Awaited<ReturnType<typeof newUser>>;

/** What a route's request names: one owner's space, with one of each thing under it. */
export interface World {
  owner: User;
  spaceId: string;
  baseId: string;
  tableId: string;
  fieldId: string;
  viewId: string;
  /** The table's first view (`viewId` is its second). */
  firstViewId: string;
  recordIds: [string, string];
  tokenId: string;
  notificationId: string;
  /** An organization of the owner's, with `domain` added (pending). */
  organizationId: string;
  domain: string;
  /** The owner's plugin (developing), for dashboards and context menus. */
  pluginId: string;
  /** The plugin installed twice in the table's context menu. */
  pluginInstallIds: [string, string];
  /** A trash item: a second base of the space, in the trash. */
  trashId: string;
  dashboardId: string;
  webhookId: string;
  /** The plugin installed on the dashboard. */
  dashboardInstallId: string;
  /** Two empty folders at the root of the base. */
  folderIds: [string, string];
}

/** An expiry a day ahead. */
export const future = () => new Date(Date.now() + 86_400_000).toISOString();
/** A token of the form uploads have, naming no upload. */
const UNKNOWN_FILE = 'x'.repeat(32);
/** A webhook target on this machine (local mode allows loopback); nothing listens there. */
const HOOK_URL = 'http://127.0.0.1:9/hook';
/** Grid selections: the first cell, and pasting `x` into it. */
const FIRST_CELL = {
  ranges: [
    [0, 0],
    [0, 0],
  ],
};
const PASTE_INTO_FIRST_CELL = { ...FIRST_CELL, content: 'x' };
const hello = () => new TextEncoder().encode('hello');
const csv = (text: string) => new TextEncoder().encode(text);

const onBase = (w: World) => ({ params: { baseId: w.baseId } });
const onSpace = (w: World) => ({ params: { spaceId: w.spaceId } });
const onTable = (w: World) => ({ params: { tableId: w.tableId } });
const onBaseTable = (w: World) => ({ params: { baseId: w.baseId, tableId: w.tableId } });
const onField = (w: World) => ({ params: { tableId: w.tableId, fieldId: w.fieldId } });
const onRecord = (w: World) => ({ params: { tableId: w.tableId, recordId: w.recordIds[0] } });
const onView = (w: World) => ({ params: { tableId: w.tableId, viewId: w.viewId } });
const onOrg = (w: World) => ({ params: { organizationId: w.organizationId } });
const onToken = (w: World) => ({ params: { accessTokenId: w.tokenId } });
const onPlugin = (w: World) => ({ params: { pluginId: w.pluginId } });
const onMenuPlugin = (w: World) => ({
  params: { tableId: w.tableId, pluginInstallId: w.pluginInstallIds[0] },
});
const onDashboard = (w: World) => ({ params: { baseId: w.baseId, dashboardId: w.dashboardId } });
const onDashboardPlugin = (w: World) => ({
  params: { baseId: w.baseId, dashboardId: w.dashboardId, pluginInstallId: w.dashboardInstallId },
});
const onWebhook = (w: World) => ({ params: { baseId: w.baseId, webhookId: w.webhookId } });
const onTrashItem = (w: World) => ({ params: { trashId: w.trashId } });
const none = () => ({});
const groupByField = (w: World) =>
  `groupBy=${encodeURIComponent(JSON.stringify([{ fieldId: w.fieldId, order: 'asc' }]))}`;
const addOwnerAsViewer = (w: World) => ({
  ...onSpace(w),
  body: { collaborators: [{ principalId: w.owner.id, principalType: 'user' }], role: 'viewer' },
});
const importBody = (attachmentUrl: string) => ({
  worksheets: {
    'Import Table': {
      name: 'T',
      columns: [{ type: 'singleLineText', name: 'A', sourceColumnIndex: 0 }],
      useFirstRowAsHeader: true,
      importData: true,
    },
  },
  attachmentUrl,
  fileType: 'csv',
});
const inplaceImport = (w: World, attachmentUrl: string) => ({
  ...onBaseTable(w),
  body: {
    attachmentUrl,
    fileType: 'csv',
    insertConfig: {
      sourceWorkSheetKey: 'Import Table',
      excludeFirstRow: true,
      sourceColumnMap: { [w.fieldId]: 0 },
    },
  },
});

/** The password the matrices give a world's owner (`givePassword`). */
export const MATRIX_PASSWORD = 'matrix-pass-1';

const givePassword = async (w: World) => {
  const res = await call('add-password', { token: w.owner.auth, body: { password: MATRIX_PASSWORD } });
  if (res.status !== 201) throw new Error(`add-password: ${res.status} ${JSON.stringify(res.body)}`);
};

/** Each route's request, from the world's ids alone. */
export const REQUESTS: Record<HandlerName, (w: World) => CallOptions> = {
  'get-health': none,
  'get-openapi': none,
  'get-docs': none,
  'get-sign-in-page': none,
  'get-docs-asset': () => ({ params: { asset: 'swagger-ui.css' } }),
  'create-table': (w) => ({ ...onBase(w), body: { name: 'T2', records: [] } }),
  'list-tables': onBase,
  'get-table': onBaseTable,
  'update-table': (w) => ({ ...onBaseTable(w), body: { name: 'Renamed' } }),
  'delete-table': onBaseTable,
  'delete-table-permanently': onBaseTable,
  'get-default-view-id': onBaseTable,
  'update-table-name': (w) => ({ ...onBaseTable(w), body: { name: 'Renamed' } }),
  'update-table-icon': (w) => ({ ...onBaseTable(w), body: { icon: 'x' } }),
  'update-table-description': (w) => ({ ...onBaseTable(w), body: { description: null } }),
  'update-table-db-table-name': (w) => ({ ...onBaseTable(w), body: { dbTableName: 'renamed' } }),
  'update-table-order': (w) => ({
    ...onBaseTable(w),
    body: { anchorId: 'tbl0000000000000001', position: 'after' },
  }),
  'get-table-permission': onBaseTable,
  'create-field': (w) => ({ ...onTable(w), body: { type: 'singleLineText', name: 'F2' } }),
  'list-fields': onTable,
  'get-field': onField,
  'plan-field-create': (w) => ({ ...onTable(w), body: { type: 'singleLineText', name: 'Planned' } }),
  'plan-field-convert': (w) => ({ ...onField(w), body: { type: 'longText' } }),
  'plan-field': onField,
  'update-field': (w) => ({ ...onField(w), body: { name: 'G' } }),
  'convert-field': (w) => ({ ...onField(w), body: { type: 'longText' } }),
  'delete-field': onField,
  'delete-fields': (w) => ({ ...onTable(w), query: `fieldIds[]=${w.fieldId}` }),
  'create-view': (w) => ({ ...onTable(w), body: { type: 'grid' } }),
  'list-views': onTable,
  'get-view': onView,
  'update-view': (w) => ({ ...onView(w), body: { name: 'V2' } }),
  'delete-view': onView,
  'update-record-order': (w) => ({
    ...onView(w),
    body: { anchorId: w.recordIds[0], position: 'after', recordIds: [w.recordIds[1]] },
  }),
  'update-view-name': (w) => ({ ...onView(w), body: { name: 'V2' } }),
  'update-view-description': (w) => ({ ...onView(w), body: { description: 'D' } }),
  'update-view-filter': (w) => ({ ...onView(w), body: { filter: null } }),
  'update-view-sort': (w) => ({ ...onView(w), body: { sort: null } }),
  'update-view-group': (w) => ({ ...onView(w), body: { group: null } }),
  'update-view-options': (w) => ({ ...onView(w), body: { options: { rowHeight: 'short' } } }),
  'update-view-column-meta': (w) => ({
    ...onView(w),
    body: [{ fieldId: w.fieldId, columnMeta: { width: 100 } }],
  }),
  'move-view': (w) => ({ ...onView(w), body: { anchorId: w.firstViewId, position: 'before' } }),
  'apply-view-manual-sort': (w) => ({
    ...onView(w),
    body: { sortObjs: [{ fieldId: w.fieldId, order: 'desc' }] },
  }),
  'update-view-locked': (w) => ({ ...onView(w), body: { isLocked: true } }),
  'list-field-filter-link-records': onField,
  'list-view-filter-link-records': onView,
  'get-record': onRecord,
  'list-records': (w) => ({ ...onTable(w), query: 'take=1' }),
  'get-selection-range-to-id': (w) => ({ ...onTable(w), query: 'ranges=[[0,0],[0,0]]&returnType=all' }),
  'copy-selection': (w) => ({ ...onTable(w), query: 'ranges=[[0,0],[0,0]]' }),
  'clear-selection': (w) => ({ ...onTable(w), body: FIRST_CELL }),
  'delete-selection': (w) => ({ ...onTable(w), query: 'ranges=[[0,1],[0,1]]' }),
  'paste-selection': (w) => ({ ...onTable(w), body: PASTE_INTO_FIRST_CELL }),
  'temporary-paste-selection': (w) => ({ ...onTable(w), body: PASTE_INTO_FIRST_CELL }),
  'get-row-count': onTable,
  undo: onTable,
  redo: onTable,
  'get-comment-counts': onTable,
  'get-record-comment-count': onRecord,
  'get-instance-settings': none,
  'export-table-csv': onTable,
  'get-aggregations': (w) => ({ ...onTable(w), query: `field[count][]=${w.fieldId}` }),
  'get-group-points': (w) => ({ ...onTable(w), query: groupByField(w) }),
  'get-search-count': (w) => ({ ...onTable(w), query: 'search[]=a' }),
  'get-search-index': (w) => ({ ...onTable(w), query: 'search[]=a&take=10' }),
  'get-calendar-daily-collection': (w) => ({
    ...onTable(w),
    query:
      'startDate=2024-01-01&endDate=2024-01-31&startDateFieldId=fldNONE0000000000000&endDateFieldId=fldNONE0000000000000',
  }),
  'get-task-status-collection': onTable,
  'create-query-params': () => ({ body: { params: { take: 10 } } }),
  'update-record': (w) => ({ ...onRecord(w), body: { record: { fields: { Name: 'x' } } } }),
  'delete-record': onRecord,
  'create-records': (w) => ({ ...onTable(w), body: { records: [{ fields: {} }] } }),
  'update-records': (w) => ({
    ...onTable(w),
    body: { records: [{ id: w.recordIds[0], fields: { Name: 'y' } }] },
  }),
  'delete-records': (w) => ({ ...onTable(w), query: `recordIds[]=${w.recordIds[1]}` }),
  'duplicate-record': (w) => ({ ...onRecord(w), body: {} }),
  'get-record-status': (w) => ({ ...onRecord(w), query: `viewId=${w.viewId}` }),
  'get-current-user': none,
  'sign-up': () => ({
    body: { email: `${randomBase62(10).toLowerCase()}@example.test`, password: MATRIX_PASSWORD },
  }),
  'sign-in': (w) => ({ body: { email: w.owner.email, password: MATRIX_PASSWORD } }),
  'sign-out': none,
  'change-password': () => ({ body: { password: MATRIX_PASSWORD, newPassword: `${MATRIX_PASSWORD}x` } }),
  'add-password': () => ({ body: { password: MATRIX_PASSWORD } }),
  'get-user-info': none,
  'rename-user': () => ({ body: { name: 'New name' } }),
  'create-temp-token': none,
  'create-access-token': () => ({ body: { name: 't', scopes: ['space|read'], expiredTime: future() } }),
  'list-access-tokens': none,
  'update-access-token': (w) => ({ ...onToken(w), body: { name: 'x' } }),
  'replace-access-token': (w) => ({ ...onToken(w), body: { name: 'x', scopes: ['space|read'] } }),
  'get-access-token': onToken,
  'refresh-access-token': (w) => ({ ...onToken(w), body: { expiredTime: future() } }),
  'delete-access-token': onToken,
  'create-user': () => ({ body: { name: 'n', email: `m${Date.now()}${Math.random()}@example.test` } }),
  'create-space': () => ({ body: { name: 'S' } }),
  'list-spaces': none,
  'get-space': onSpace,
  'update-space': (w) => ({ ...onSpace(w), body: { name: 'R' } }),
  'delete-space': onSpace,
  'delete-space-permanently': onSpace,
  'list-collaborators': onSpace,
  'add-collaborators': addOwnerAsViewer,
  'update-collaborator': (w) => ({
    ...onSpace(w),
    body: { principalId: w.owner.id, principalType: 'user', role: 'owner' },
  }),
  'remove-collaborator': (w) => ({ ...onSpace(w), query: `principalId=${w.owner.id}&principalType=user` }),
  'create-base': (w) => ({ body: { spaceId: w.spaceId, name: 'B' } }),
  'list-bases': onSpace,
  'get-base': onBase,
  'list-changes': onBase,
  'sign-attachment-upload': (w) => ({
    body: { contentType: 'text/plain', contentLength: 5, type: 1, baseId: w.baseId },
  }),
  'upload-attachment-file': () => ({ params: { token: UNKNOWN_FILE }, rawBody: 'hello' }),
  'upload-record-attachment': (w) => ({
    params: { tableId: w.tableId, recordId: w.recordIds[0], fieldId: w.fieldId },
    ...uploadForm({ file: hello(), filename: 'a.txt', contentType: 'text/plain' }),
  }),
  'notify-attachment': () => ({ params: { token: UNKNOWN_FILE } }),
  'read-attachment': () => ({ params: { token: UNKNOWN_FILE } }),
  'analyze-import-file': () => ({ query: `attachmentUrl=${UNKNOWN_FILE}&fileType=csv` }),
  'import-table-from-file': (w) => ({ ...onBase(w), body: importBody(UNKNOWN_FILE) }),
  'inplace-import-table': (w) => inplaceImport(w, UNKNOWN_FILE),
  'list-record-history': onTable,
  'get-record-history': onRecord,
  'update-base': (w) => ({ ...onBase(w), body: { name: 'R' } }),
  'delete-base': onBase,
  'delete-base-permanently': onBase,
  'add-collaborator': addOwnerAsViewer,
  'list-accessible-bases': none,
  'update-base-order': (w) => ({
    ...onBase(w),
    body: { anchorId: 'bse0000000000000001', position: 'before' },
  }),
  'get-base-permission': onBase,
  'move-base': (w) => ({ ...onBase(w), body: { spaceId: w.spaceId } }),
  'list-base-collaborators': onBase,
  'list-base-collaborator-users': onBase,
  'list-notifications': none,
  'count-unread-notifications': none,
  'mark-all-notifications-read': none,
  'update-notification-status': (w) => ({
    params: { notificationId: w.notificationId },
    body: { isRead: true },
  }),
  'list-pins': none,
  'add-pin': (w) => ({ body: { type: 'base', id: w.baseId } }),
  'delete-pin': (w) => ({ query: `type=base&id=${w.baseId}` }),
  'update-pin-order': (w) => ({
    body: { id: w.baseId, type: 'base', anchorId: w.spaceId, anchorType: 'space', position: 'before' },
  }),
  'create-organization': () => ({ body: { name: 'O' } }),
  'get-organization': onOrg,
  'list-organization-domains': onOrg,
  'add-organization-domain': (w) => ({
    ...onOrg(w),
    body: { domain: `n${randomBase62(10).toLowerCase()}.example.test` },
  }),
  'delete-organization-domain': (w) => ({ params: { organizationId: w.organizationId, domain: w.domain } }),
  'verify-organization-domain': (w) => ({ ...onOrg(w), body: { domain: w.domain, code: '123456' } }),
  'send-domain-verification-email': (w) => ({
    ...onOrg(w),
    body: { domain: w.domain, email: `a@${w.domain}` },
  }),
  'create-plugin': () => ({
    body: { name: 'P', logo: 'https://example.test/p.png', positions: ['contextMenu'] },
  }),
  'list-plugins': none,
  'get-plugin': onPlugin,
  'delete-plugin': onPlugin,
  'publish-plugin': onPlugin,
  'unpublish-plugin-as-admin': onPlugin,
  'update-plugin': (w) => ({ ...onPlugin(w), body: { name: 'P', positions: ['dashboard'] } }),
  'list-plugin-center': () => ({ query: 'positions=%5B%22dashboard%22%5D' }),
  'submit-plugin': onPlugin,
  'unpublish-plugin': onPlugin,
  'get-context-menu-plugin': onMenuPlugin,
  'rename-context-menu-plugin': (w) => ({ ...onMenuPlugin(w), body: { name: 'R' } }),
  'update-context-menu-plugin-storage': (w) => ({ ...onMenuPlugin(w), body: { storage: { a: 1 } } }),
  'get-context-menu-plugin-storage': onMenuPlugin,
  'install-context-menu-plugin': (w) => ({ ...onTable(w), body: { pluginId: w.pluginId } }),
  'list-context-menu-plugins': onTable,
  'remove-context-menu-plugin': onMenuPlugin,
  'move-context-menu-plugin': (w) => ({
    params: { tableId: w.tableId, pluginInstallId: w.pluginInstallIds[1] },
    body: { anchorId: w.pluginInstallIds[0], position: 'before' },
  }),
  'list-trash': () => ({ query: 'resourceType=base' }),
  'list-trash-items': (w) => ({ query: `resourceType=base&resourceId=${w.baseId}` }),
  'restore-trash-item': onTrashItem,
  'reset-trash-items': (w) => ({ query: `resourceType=base&resourceId=${w.baseId}` }),
  'delete-trash-item': onTrashItem,
  'list-nodes': onBase,
  'create-node': (w) => ({ ...onBase(w), body: { resourceType: 'folder', name: 'F' } }),
  'move-node': (w) => ({
    params: { baseId: w.baseId, nodeId: w.folderIds[1] },
    body: { anchorId: w.folderIds[0], position: 'before' },
  }),
  'delete-node': (w) => ({ params: { baseId: w.baseId, nodeId: w.folderIds[0] } }),
  'delete-node-permanently': (w) => ({ params: { baseId: w.baseId, nodeId: w.folderIds[1] } }),
  'create-dashboard': (w) => ({ ...onBase(w), body: { name: 'D' } }),
  'list-dashboards': onBase,
  'get-dashboard': onDashboard,
  'rename-dashboard': (w) => ({ ...onDashboard(w), body: { name: 'R' } }),
  'delete-dashboard': onDashboard,
  'create-webhook': (w) => ({ ...onBase(w), body: { url: HOOK_URL } }),
  'list-webhooks': onBase,
  'get-webhook': onWebhook,
  'update-webhook': (w) => ({ ...onWebhook(w), body: { description: 'd' } }),
  'delete-webhook': onWebhook,
  'rotate-webhook-secret': onWebhook,
  'list-webhook-deliveries': onWebhook,
  'redeliver-webhook': (w) => ({
    params: { ...onWebhook(w).params, deliveryId: 'dlv0000000000000000' },
  }),
  'install-dashboard-plugin': (w) => ({ ...onDashboard(w), body: { pluginId: w.pluginId } }),
  'remove-dashboard-plugin': onDashboardPlugin,
  'rename-dashboard-plugin': (w) => ({ ...onDashboardPlugin(w), body: { name: 'R' } }),
  'update-dashboard-layout': (w) => ({
    ...onDashboard(w),
    body: { layout: [{ pluginInstallId: w.dashboardInstallId, x: 0, y: 0, w: 4, h: 3 }] },
  }),
  'get-dashboard-plugin': onDashboardPlugin,
  'update-dashboard-plugin-storage': (w) => ({ ...onDashboardPlugin(w), body: { storage: { a: 1 } } }),
  'get-job': (w) => ({ params: { kind: 'table', resourceId: w.tableId } }),
};

/** The owner pins the world's space, then its base. */
const pinSpaceAndBase = async (w: World) => {
  for (const body of [
    { type: 'space', id: w.spaceId },
    { type: 'base', id: w.baseId },
  ]) {
    const res = await call('add-pin', { token: w.owner.auth, body });
    if (res.status !== 201) throw new Error(`add-pin: ${res.status} ${JSON.stringify(res.body)}`);
  }
};

/**
 * The routes whose request needs something made first (by the owner) to succeed: something to
 * move next to, an upload, a notification, a mailed code, a date field, a started job.
 */
export const PREPARED: Partial<Record<HandlerName, (w: World) => Promise<CallOptions>>> = {
  // a password to sign in with, or to change
  'sign-in': async (w) => {
    await givePassword(w);
    return REQUESTS['sign-in'](w);
  },
  'change-password': async (w) => {
    await givePassword(w);
    return REQUESTS['change-password'](w);
  },
  // an attempt in the webhook's log to send again
  'redeliver-webhook': async (w) => {
    const deliveryId = newTimeOrderedId('delivery');
    await putDeliveries([
      {
        id: deliveryId,
        webhookId: w.webhookId,
        eventId: 'evt0000000000000000',
        seq: 1,
        attempt: 1,
        status: 'failed',
        attemptedAt: new Date().toISOString(),
      },
    ]);
    return { params: { ...onWebhook(w).params, deliveryId } };
  },
  'upload-attachment-file': async (w) => {
    const signature = await call('sign-attachment-upload', {
      token: w.owner.auth,
      ...REQUESTS['sign-attachment-upload'](w),
    });
    return {
      params: { token: signature.body.token },
      rawBody: 'hello',
      headers: { 'content-type': 'text/plain' },
    };
  },
  'notify-attachment': async (w) => {
    const { token } = await signAndPut(w.owner.auth, w.baseId, hello(), 'text/plain');
    return { params: { token } };
  },
  'analyze-import-file': async (w) => ({
    query: `attachmentUrl=${(await uploadFile(w.owner.auth, w.baseId, csv('A,B\n1,2\n'), 'text/csv', 'a.csv')).token}&fileType=csv`,
  }),
  'import-table-from-file': async (w) => ({
    ...onBase(w),
    body: importBody((await uploadFile(w.owner.auth, w.baseId, csv('A\nx\n'), 'text/csv', 'a.csv')).token),
  }),
  'inplace-import-table': async (w) =>
    inplaceImport(w, (await uploadFile(w.owner.auth, w.baseId, csv('A\nx\n'), 'text/csv', 'a.csv')).token),
  'read-attachment': async (w) => ({ params: { token: (await uploadFile(w.owner.auth, w.baseId)).token } }),
  'upload-record-attachment': async (w) => {
    const files = await call('create-field', {
      token: w.owner.auth,
      ...onTable(w),
      body: { type: 'attachment', name: 'Files' },
    });
    return {
      params: { tableId: w.tableId, recordId: w.recordIds[0], fieldId: files.body.id },
      ...uploadForm({ file: hello(), filename: 'a.txt', contentType: 'text/plain' }),
    };
  },
  'update-table-order': async (w) => {
    const other = await call('create-table', { token: w.owner.auth, ...onBase(w), body: { records: [] } });
    return { ...onBaseTable(w), body: { anchorId: other.body.id, position: 'after' } };
  },
  'update-base-order': async (w) => {
    const other = await call('create-base', { token: w.owner.auth, body: { spaceId: w.spaceId } });
    return { ...onBase(w), body: { anchorId: other.body.id, position: 'before' } };
  },
  'remove-collaborator': async (w) => {
    const other = await newUser();
    await call('add-collaborators', {
      token: w.owner.auth,
      ...onSpace(w),
      body: { collaborators: [{ principalId: other.id, principalType: 'user' }], role: 'viewer' },
    });
    return { ...onSpace(w), query: `principalId=${other.id}&principalType=user` };
  },
  // the owner pins its space and its base: pins to list (so their shape is checked), to move one next to the other
  'list-pins': async (w) => {
    await pinSpaceAndBase(w);
    return REQUESTS['list-pins'](w);
  },
  'update-pin-order': async (w) => {
    await pinSpaceAndBase(w);
    return REQUESTS['update-pin-order'](w);
  },
  // someone adds the owner to a space: the owner gets a notification
  'update-notification-status': async (w) => {
    const other = await newUser();
    const space = await call('create-space', { token: other.auth, body: {} });
    await call('add-collaborators', {
      token: other.auth,
      params: { spaceId: space.body.id },
      body: { collaborators: [{ principalId: w.owner.id, principalType: 'user' }], role: 'viewer' },
    });
    const list = await call('list-notifications', { token: w.owner.auth });
    return { params: { notificationId: list.body.notifications[0].id }, body: { isRead: true } };
  },
  'verify-organization-domain': async (w) => {
    const email = `a@${w.domain}`;
    await call('send-domain-verification-email', {
      token: w.owner.auth,
      ...onOrg(w),
      body: { domain: w.domain, email },
    });
    return { ...onOrg(w), body: { domain: w.domain, code: await latestCode(email) } };
  },
  // a date field, and a record in the window
  'get-calendar-daily-collection': async (w) => {
    const field = await call('create-field', {
      token: w.owner.auth,
      ...onTable(w),
      body: { type: 'date', name: 'When' },
    });
    await call('update-record', {
      token: w.owner.auth,
      ...onRecord(w),
      body: { record: { fields: { When: '2024-01-10T00:00:00.000Z' } } },
    });
    const id = field.body.id;
    return {
      ...onTable(w),
      query: `startDate=2024-01-01&endDate=2024-01-31&startDateFieldId=${id}&endDateFieldId=${id}`,
    };
  },
  'get-job': async (w) => {
    await call('delete-table-permanently', { token: w.owner.auth, ...onBaseTable(w) });
    return REQUESTS['get-job'](w);
  },
};

/** A request of the route that succeeds for a caller allowed to make it (made ready by the owner). */
export const succeedingRequest = async (handler: HandlerName, w: World): Promise<CallOptions> =>
  (await PREPARED[handler]?.(w)) ?? REQUESTS[handler](w);

/**
 * A new owner's space holding one of each thing a route acts on: a base with a table (two views,
 * two records), the owner's plugin installed twice in its context menu and once on a dashboard,
 * a webhook, two folders, a base in the trash; an access token and an organization of the owner's.
 */
export const newWorld = async (options: { adminOwner?: boolean } = {}): Promise<World> => {
  const owner = await newUser({ isAdmin: options.adminOwner });
  const space = await call('create-space', { token: owner.auth, body: { name: 'Matrix' } });
  const base = await call('create-base', { token: owner.auth, body: { spaceId: space.body.id, name: 'M' } });
  const token = await call('create-access-token', {
    token: owner.auth,
    body: { name: 'x', scopes: ['space|read'], expiredTime: future() },
  });
  const table = await call('create-table', {
    token: owner.auth,
    params: { baseId: base.body.id },
    body: {
      views: [{ type: 'grid' }, { type: 'grid', name: 'Second' }],
      records: [{ fields: {} }, { fields: {} }],
    },
  });
  const plugin = await call('create-plugin', {
    token: owner.auth,
    body: {
      name: 'Matrix plugin',
      logo: 'https://example.test/m.png',
      positions: ['contextMenu', 'dashboard'],
    },
  });
  const install = () =>
    call('install-context-menu-plugin', {
      token: owner.auth,
      params: { tableId: table.body.id },
      body: { pluginId: plugin.body.id },
    });
  const installs = [await install(), await install()];
  const trashed = await call('create-base', { token: owner.auth, body: { spaceId: space.body.id } });
  await call('delete-base', { token: owner.auth, params: { baseId: trashed.body.id } });
  const trash = await call('list-trash', { token: owner.auth, query: 'resourceType=base' });
  const inBase = { token: owner.auth, params: { baseId: base.body.id } };
  const dashboard = await call('create-dashboard', { ...inBase, body: { name: 'Matrix' } });
  const dashboardInstall = await call('install-dashboard-plugin', {
    token: owner.auth,
    params: { baseId: base.body.id, dashboardId: dashboard.body.id },
    body: { pluginId: plugin.body.id },
  });
  const webhook = await call('create-webhook', { ...inBase, body: { url: HOOK_URL } });
  const folder = () => call('create-node', { ...inBase, body: { resourceType: 'folder', name: 'F' } });
  const folders = [await folder(), await folder()];
  const org = await call('create-organization', { token: owner.auth, body: { name: 'Matrix org' } });
  const domain = `m${randomBase62(10).toLowerCase()}.example.test`;
  await call('add-organization-domain', {
    token: owner.auth,
    params: { organizationId: org.body.id },
    body: { domain },
  });
  return {
    owner,
    spaceId: space.body.id,
    baseId: base.body.id,
    tableId: table.body.id,
    fieldId: table.body.fields[1].id,
    viewId: table.body.views[1].id,
    firstViewId: table.body.views[0].id,
    recordIds: [table.body.records[0].id, table.body.records[1].id],
    tokenId: token.body.id,
    notificationId: 'not0000000000000000',
    organizationId: org.body.id,
    domain,
    pluginId: plugin.body.id,
    pluginInstallIds: [installs[0]?.body.pluginInstallId, installs[1]?.body.pluginInstallId],
    trashId: trash.body.trashItems[0].id,
    dashboardId: dashboard.body.id,
    webhookId: webhook.body.id,
    dashboardInstallId: dashboardInstall.body.pluginInstallId,
    folderIds: [folders[0]?.body.id, folders[1]?.body.id],
  };
};
