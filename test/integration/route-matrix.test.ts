import { describe, expect, it } from 'vitest';
import { ANSWERS } from '#infra/answers.ts';
import { SCOPES } from '#shared/auth/scopes.ts';
import { NotFoundError } from '#shared/core/errors.ts';
import { updateItem } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { putDeliveries } from '#shared/entities/webhook-deliveries.ts';
import { newTimeOrderedId, randomBase62 } from '#shared/ids.ts';
import { type HandlerName, ROUTES, type RouteDef } from '#shared/routes.ts';
import { createOperatorToken } from '#shared/users/access-tokens.ts';
import { signAndPut, uploadFile, uploadForm } from '#test/support/attachments.ts';
import { newUser } from '#test/support/fixtures.ts';
import { type CallOptions, call } from '#test/support/invoke.ts';
import { latestCode } from '#test/support/outbox.ts';
import { FIRST_CELL, PASTE_INTO_FIRST_CELL } from '#test/support/selections.ts';

/**
 * Every route of the route table against the three ways a caller is refused: no token (401), a
 * token without the route's scope (403), a user outside the resource's space (403); and its
 * success answer against the shape the API description gives it (`infra/answers.ts`). Each route
 * needs a valid sample request here, so a new route without one fails this file.
 */
interface World {
  owner: Awaited<ReturnType<typeof newUser>>;
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
  pluginId: string;
  pluginInstallIds: [string, string];
  /** A trash item: a second base of the space, in the trash. */
  trashId: string;
  dashboardId: string;
  webhookId: string;
  /** A plugin installed on the dashboard. */
  dashboardInstallId: string;
  /** Two empty folders at the root of the base. */
  folderIds: [string, string];
}

const future = () => new Date(Date.now() + 86_400_000).toISOString();
/** A token of the form uploads have, naming no upload. */
const UNKNOWN_FILE = 'x'.repeat(32);

const onTable = (w: World) => ({ params: { tableId: w.tableId } });
const onBaseTable = (w: World) => ({ params: { baseId: w.baseId, tableId: w.tableId } });
const onRecord = (w: World) => ({ params: { tableId: w.tableId, recordId: w.recordIds[0] } });
const onView = (w: World) => ({ params: { tableId: w.tableId, viewId: w.viewId } });
const onOrg = (w: World) => ({ params: { organizationId: w.organizationId } });
/** A webhook target on this machine (local mode allows loopback); nothing listens there. */
const HOOK_URL = 'http://127.0.0.1:9/hook';

const makeAdmin = (userId: string) =>
  updateItem(
    {
      key: keys.user(userId),
      update: 'SET isAdmin = :t',
      condition: 'attribute_exists(pk)',
      values: { ':t': true },
    },
    () => new NotFoundError(`no user ${userId}`),
  );

const SAMPLES: Record<HandlerName, (w: World) => CallOptions> = {
  'get-health': () => ({}),
  'get-openapi': () => ({}),
  'get-docs': () => ({}),
  'get-docs-asset': () => ({ params: { asset: 'swagger-ui.css' } }),
  'create-table': (w) => ({ params: { baseId: w.baseId }, body: { name: 'T2', records: [] } }),
  'list-tables': (w) => ({ params: { baseId: w.baseId } }),
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
  'get-field': (w) => ({ params: { tableId: w.tableId, fieldId: w.fieldId } }),
  'update-field': (w) => ({ params: { tableId: w.tableId, fieldId: w.fieldId }, body: { name: 'G' } }),
  'convert-field': (w) => ({
    params: { tableId: w.tableId, fieldId: w.fieldId },
    body: { type: 'longText' },
  }),
  'delete-field': (w) => ({ params: { tableId: w.tableId, fieldId: w.fieldId } }),
  'delete-fields': (w) => ({ ...onTable(w), query: `fieldIds[]=${w.fieldId}` }),
  'create-view': (w) => ({ ...onTable(w), body: { type: 'grid' } }),
  'list-views': onTable,
  'get-view': (w) => ({ params: { tableId: w.tableId, viewId: w.viewId } }),
  'update-view': (w) => ({ params: { tableId: w.tableId, viewId: w.viewId }, body: { name: 'V2' } }),
  'delete-view': (w) => ({ params: { tableId: w.tableId, viewId: w.viewId } }),
  'update-record-order': (w) => ({
    params: { tableId: w.tableId, viewId: w.viewId },
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
  'list-field-filter-link-records': (w) => ({ params: { tableId: w.tableId, fieldId: w.fieldId } }),
  'list-view-filter-link-records': onView,
  'get-record': onRecord,
  'list-records': (w) => ({ ...onTable(w), query: 'take=1' }),
  'get-selection-range-to-id': (w) => ({ ...onTable(w), query: 'ranges=[[0,0],[0,0]]&returnType=all' }),
  'copy-selection': (w) => ({ ...onTable(w), query: 'ranges=[[0,0],[0,0]]' }),
  'clear-selection': (w) => ({
    ...onTable(w),
    body: FIRST_CELL,
  }),
  'delete-selection': (w) => ({ ...onTable(w), query: 'ranges=[[0,1],[0,1]]' }),
  'paste-selection': (w) => ({
    ...onTable(w),
    body: PASTE_INTO_FIRST_CELL,
  }),
  'temporary-paste-selection': (w) => ({
    ...onTable(w),
    body: PASTE_INTO_FIRST_CELL,
  }),
  'get-row-count': (w) => ({ ...onTable(w) }),
  'export-table-csv': (w) => ({ ...onTable(w) }),
  'get-aggregations': (w) => ({ ...onTable(w), query: `field[count][]=${w.fieldId}` }),
  'get-group-points': (w) => ({
    ...onTable(w),
    query: `groupBy=${encodeURIComponent(JSON.stringify([{ fieldId: w.fieldId, order: 'asc' }]))}`,
  }),
  'get-search-count': (w) => ({ ...onTable(w), query: 'search[]=a' }),
  'get-search-index': (w) => ({ ...onTable(w), query: 'search[]=a&take=10' }),
  'get-calendar-daily-collection': (w) => ({
    ...onTable(w),
    query:
      'startDate=2024-01-01&endDate=2024-01-31&startDateFieldId=fldNONE0000000000000&endDateFieldId=fldNONE0000000000000',
  }),
  'get-task-status-collection': (w) => ({ ...onTable(w) }),
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
  'get-current-user': () => ({}),
  'get-user-info': () => ({}),
  'rename-user': () => ({ body: { name: 'New name' } }),
  'create-temp-token': () => ({}),
  'create-access-token': () => ({ body: { name: 't', scopes: ['space|read'], expiredTime: future() } }),
  'list-access-tokens': () => ({}),
  'update-access-token': (w) => ({ params: { accessTokenId: w.tokenId }, body: { name: 'x' } }),
  'replace-access-token': (w) => ({
    params: { accessTokenId: w.tokenId },
    body: { name: 'x', scopes: ['space|read'] },
  }),
  'get-access-token': (w) => ({ params: { accessTokenId: w.tokenId } }),
  'refresh-access-token': (w) => ({ params: { accessTokenId: w.tokenId }, body: { expiredTime: future() } }),
  'delete-access-token': (w) => ({ params: { accessTokenId: w.tokenId } }),
  'create-user': () => ({ body: { name: 'n', email: `m${Date.now()}${Math.random()}@example.test` } }),
  'create-space': () => ({ body: { name: 'S' } }),
  'list-spaces': () => ({}),
  'get-space': (w) => ({ params: { spaceId: w.spaceId } }),
  'update-space': (w) => ({ params: { spaceId: w.spaceId }, body: { name: 'R' } }),
  'delete-space': (w) => ({ params: { spaceId: w.spaceId } }),
  'delete-space-permanently': (w) => ({ params: { spaceId: w.spaceId } }),
  'list-collaborators': (w) => ({ params: { spaceId: w.spaceId } }),
  'add-collaborators': (w) => ({
    params: { spaceId: w.spaceId },
    body: { collaborators: [{ principalId: w.owner.id, principalType: 'user' }], role: 'viewer' },
  }),
  'update-collaborator': (w) => ({
    params: { spaceId: w.spaceId },
    body: { principalId: w.owner.id, principalType: 'user', role: 'owner' },
  }),
  'remove-collaborator': (w) => ({
    params: { spaceId: w.spaceId },
    query: `principalId=${w.owner.id}&principalType=user`,
  }),
  'create-base': (w) => ({ body: { spaceId: w.spaceId, name: 'B' } }),
  'list-bases': (w) => ({ params: { spaceId: w.spaceId } }),
  'get-base': (w) => ({ params: { baseId: w.baseId } }),
  'list-changes': (w) => ({ params: { baseId: w.baseId } }),
  'sign-attachment-upload': (w) => ({
    body: { contentType: 'text/plain', contentLength: 5, type: 1, baseId: w.baseId },
  }),
  'upload-attachment-file': () => ({ params: { token: UNKNOWN_FILE }, rawBody: 'hello' }),
  'upload-record-attachment': (w) => ({
    params: { tableId: w.tableId, recordId: w.recordIds[0], fieldId: w.fieldId },
    ...uploadForm({ file: new TextEncoder().encode('hello'), filename: 'a.txt', contentType: 'text/plain' }),
  }),
  'notify-attachment': () => ({ params: { token: UNKNOWN_FILE } }),
  'read-attachment': () => ({ params: { token: UNKNOWN_FILE } }),
  'analyze-import-file': () => ({ query: `attachmentUrl=${UNKNOWN_FILE}&fileType=csv` }),
  'import-table-from-file': (w) => ({
    params: { baseId: w.baseId },
    body: {
      worksheets: {
        'Import Table': {
          name: 'T',
          columns: [{ type: 'singleLineText', name: 'A', sourceColumnIndex: 0 }],
          useFirstRowAsHeader: true,
          importData: true,
        },
      },
      attachmentUrl: UNKNOWN_FILE,
      fileType: 'csv',
    },
  }),
  'inplace-import-table': (w) => ({
    params: { baseId: w.baseId, tableId: w.tableId },
    body: {
      attachmentUrl: UNKNOWN_FILE,
      fileType: 'csv',
      insertConfig: {
        sourceWorkSheetKey: 'Import Table',
        excludeFirstRow: true,
        sourceColumnMap: { [w.fieldId]: 0 },
      },
    },
  }),
  'list-record-history': (w) => ({ params: { tableId: w.tableId } }),
  'get-record-history': onRecord,
  'update-base': (w) => ({ params: { baseId: w.baseId }, body: { name: 'R' } }),
  'delete-base': (w) => ({ params: { baseId: w.baseId } }),
  'delete-base-permanently': (w) => ({ params: { baseId: w.baseId } }),
  'add-collaborator': (w) => ({
    params: { spaceId: w.spaceId },
    body: { collaborators: [{ principalId: w.owner.id, principalType: 'user' }], role: 'viewer' },
  }),
  'list-accessible-bases': () => ({}),
  'update-base-order': (w) => ({
    params: { baseId: w.baseId },
    body: { anchorId: 'bse0000000000000001', position: 'before' },
  }),
  'get-base-permission': (w) => ({ params: { baseId: w.baseId } }),
  'move-base': (w) => ({ params: { baseId: w.baseId }, body: { spaceId: w.spaceId } }),
  'list-base-collaborators': (w) => ({ params: { baseId: w.baseId } }),
  'list-base-collaborator-users': (w) => ({ params: { baseId: w.baseId } }),
  'list-notifications': () => ({}),
  'count-unread-notifications': () => ({}),
  'mark-all-notifications-read': () => ({}),
  'update-notification-status': (w) => ({
    params: { notificationId: w.notificationId },
    body: { isRead: true },
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
  'list-plugins': () => ({}),
  'get-plugin': (w) => ({ params: { pluginId: w.pluginId } }),
  'delete-plugin': (w) => ({ params: { pluginId: w.pluginId } }),
  'publish-plugin': (w) => ({ params: { pluginId: w.pluginId } }),
  'unpublish-plugin-as-admin': (w) => ({ params: { pluginId: w.pluginId } }),
  'update-plugin': (w) => ({
    params: { pluginId: w.pluginId },
    body: { name: 'P', positions: ['dashboard'] },
  }),
  'list-plugin-center': () => ({ query: 'positions=%5B%22dashboard%22%5D' }),
  'submit-plugin': (w) => ({ params: { pluginId: w.pluginId } }),
  'unpublish-plugin': (w) => ({ params: { pluginId: w.pluginId } }),
  'get-context-menu-plugin': (w) => ({
    params: { tableId: w.tableId, pluginInstallId: w.pluginInstallIds[0] },
  }),
  'rename-context-menu-plugin': (w) => ({
    params: { tableId: w.tableId, pluginInstallId: w.pluginInstallIds[0] },
    body: { name: 'R' },
  }),
  'update-context-menu-plugin-storage': (w) => ({
    params: { tableId: w.tableId, pluginInstallId: w.pluginInstallIds[0] },
    body: { storage: { a: 1 } },
  }),
  'get-context-menu-plugin-storage': (w) => ({
    params: { tableId: w.tableId, pluginInstallId: w.pluginInstallIds[0] },
  }),
  'install-context-menu-plugin': (w) => ({ ...onTable(w), body: { pluginId: w.pluginId } }),
  'list-context-menu-plugins': onTable,
  'remove-context-menu-plugin': (w) => ({
    params: { tableId: w.tableId, pluginInstallId: w.pluginInstallIds[0] },
  }),
  'move-context-menu-plugin': (w) => ({
    params: { tableId: w.tableId, pluginInstallId: w.pluginInstallIds[1] },
    body: { anchorId: w.pluginInstallIds[0], position: 'before' },
  }),
  'list-trash': () => ({ query: 'resourceType=base' }),
  'list-trash-items': (w) => ({ query: `resourceType=base&resourceId=${w.baseId}` }),
  'restore-trash-item': (w) => ({ params: { trashId: w.trashId } }),
  'reset-trash-items': (w) => ({ query: `resourceType=base&resourceId=${w.baseId}` }),
  'delete-trash-item': (w) => ({ params: { trashId: w.trashId } }),
  'list-nodes': (w) => ({ params: { baseId: w.baseId } }),
  'create-node': (w) => ({ params: { baseId: w.baseId }, body: { resourceType: 'folder', name: 'F' } }),
  'move-node': (w) => ({
    params: { baseId: w.baseId, nodeId: w.folderIds[1] },
    body: { anchorId: w.folderIds[0], position: 'before' },
  }),
  'delete-node': (w) => ({ params: { baseId: w.baseId, nodeId: w.folderIds[0] } }),
  'delete-node-permanently': (w) => ({ params: { baseId: w.baseId, nodeId: w.folderIds[1] } }),
  'create-dashboard': (w) => ({ params: { baseId: w.baseId }, body: { name: 'D' } }),
  'list-dashboards': (w) => ({ params: { baseId: w.baseId } }),
  'get-dashboard': (w) => ({ params: { baseId: w.baseId, dashboardId: w.dashboardId } }),
  'rename-dashboard': (w) => ({
    params: { baseId: w.baseId, dashboardId: w.dashboardId },
    body: { name: 'R' },
  }),
  'delete-dashboard': (w) => ({ params: { baseId: w.baseId, dashboardId: w.dashboardId } }),
  'create-webhook': (w) => ({ params: { baseId: w.baseId }, body: { url: HOOK_URL } }),
  'list-webhooks': (w) => ({ params: { baseId: w.baseId } }),
  'get-webhook': (w) => ({ params: { baseId: w.baseId, webhookId: w.webhookId } }),
  'update-webhook': (w) => ({
    params: { baseId: w.baseId, webhookId: w.webhookId },
    body: { description: 'd' },
  }),
  'delete-webhook': (w) => ({ params: { baseId: w.baseId, webhookId: w.webhookId } }),
  'rotate-webhook-secret': (w) => ({ params: { baseId: w.baseId, webhookId: w.webhookId } }),
  'list-webhook-deliveries': (w) => ({ params: { baseId: w.baseId, webhookId: w.webhookId } }),
  'redeliver-webhook': (w) => ({
    params: { baseId: w.baseId, webhookId: w.webhookId, deliveryId: 'dlv0000000000000000' },
  }),
  'install-dashboard-plugin': (w) => ({
    params: { baseId: w.baseId, dashboardId: w.dashboardId },
    body: { pluginId: w.pluginId },
  }),
  'remove-dashboard-plugin': (w) => ({
    params: { baseId: w.baseId, dashboardId: w.dashboardId, pluginInstallId: w.dashboardInstallId },
  }),
  'rename-dashboard-plugin': (w) => ({
    params: { baseId: w.baseId, dashboardId: w.dashboardId, pluginInstallId: w.dashboardInstallId },
    body: { name: 'R' },
  }),
  'update-dashboard-layout': (w) => ({
    params: { baseId: w.baseId, dashboardId: w.dashboardId },
    body: { layout: [{ pluginInstallId: w.dashboardInstallId, x: 0, y: 0, w: 4, h: 3 }] },
  }),
  'get-dashboard-plugin': (w) => ({
    params: { baseId: w.baseId, dashboardId: w.dashboardId, pluginInstallId: w.dashboardInstallId },
  }),
  'update-dashboard-plugin-storage': (w) => ({
    params: { baseId: w.baseId, dashboardId: w.dashboardId, pluginInstallId: w.dashboardInstallId },
    body: { storage: { a: 1 } },
  }),
  'get-job': (w) => ({ params: { kind: 'table', resourceId: w.tableId } }),
};

const world = async (): Promise<World> => {
  const owner = await newUser();
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
  const onBase = { token: owner.auth, params: { baseId: base.body.id } };
  const dashboard = await call('create-dashboard', { ...onBase, body: { name: 'Matrix' } });
  const dashboardInstall = await call('install-dashboard-plugin', {
    token: owner.auth,
    params: { baseId: base.body.id, dashboardId: dashboard.body.id },
    body: { pluginId: plugin.body.id },
  });
  const webhook = await call('create-webhook', { ...onBase, body: { url: HOOK_URL } });
  const folder = () => call('create-node', { ...onBase, body: { resourceType: 'folder', name: 'F' } });
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

/** The route table with its handler names kept. */
const TABLE: readonly (RouteDef & { handler: HandlerName })[] = ROUTES;

const onTableRoute = (r: RouteDef) => r.path.includes('{tableId}');

describe('route matrix', () => {
  it('has a sample request for every route of the table', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual(ROUTES.map((r) => r.handler).sort());
  });

  it.each(TABLE.filter((r) => r.auth !== 'none').map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s without a token is 401',
    async (_, route) => {
      const w = await world();
      const res = await call(route.handler, SAMPLES[route.handler](w));
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        message: 'A valid bearer token is required',
        status: 401,
        code: 'unauthorized',
      });
    },
  );

  // A public route (`auth: 'none'`, the health check) answers without a token, reading nothing.
  it.each(TABLE.filter((r) => r.auth === 'none').map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s answers without a token',
    async (_, route) => {
      const res = await call(route.handler, SAMPLES[route.handler](await world()));
      expect(res.status).toBe(200);
    },
  );

  const scoped = ROUTES.filter((r) => r.actions.length > 0);
  it.each(scoped.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s with a token lacking its scope is 403',
    async (_, route) => {
      const w = await world();
      // An admin route: the user is an admin, so the missing scope is what refuses the call.
      if ((route.actions as readonly string[]).includes('instance|admin')) await makeAdmin(w.owner.id);
      const { token } = await createOperatorToken(w.owner.id, {
        name: 'narrow',
        scopes: SCOPES.filter((s) => !(route.actions as readonly string[]).includes(s)),
        expiredTime: future(),
      });
      const res = await call(route.handler, { ...SAMPLES[route.handler](w), token: `Bearer ${token}` });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('restricted_resource');
      expect(res.body.message).toContain(route.actions[0]);
    },
  );

  // The resource a route names in its path: a stranger to its space is refused, an unknown id is 404.
  const LEVELS = [
    { level: 'space', param: '{spaceId}', unknown: { spaceId: 'spc0000000000000000' } },
    { level: 'base', param: '{baseId}', unknown: { baseId: 'bse0000000000000000' } },
    { level: 'table', param: '{tableId}', unknown: { tableId: 'tbl0000000000000000' } },
  ] as const;
  const byLevel = LEVELS.flatMap(({ level, param, unknown }) =>
    ROUTES.filter((r) => r.path.includes(param)).map(
      (r) => [level, `${r.method} ${r.path}`, r, unknown] as const,
    ),
  );

  it.each(byLevel)('%s route %s by a user outside the space is 403', async (_, __, route) => {
    const w = await world();
    const outsider = await newUser();
    const res = await call(route.handler, { ...SAMPLES[route.handler](w), token: outsider.auth });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      message: expect.stringMatching(/^not a collaborator of (space spc|the space that holds )\w+$/),
      status: 403,
      code: 'restricted_resource',
    });
    // The space's id is named only to a caller who named the space itself.
    const message = (res.body as { message: string }).message;
    if (!route.path.includes('{spaceId}') && !JSON.stringify(SAMPLES[route.handler](w)).includes(w.spaceId))
      expect(message).not.toContain(w.spaceId);
  });

  it.each(byLevel)('%s route %s on an id that does not exist is 404', async (_, __, route, unknown) => {
    const w = await world();
    const res = await call(route.handler, {
      ...SAMPLES[route.handler]({ ...w, ...unknown }),
      token: w.owner.auth,
    });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });

  it.each(ROUTES.filter(onTableRoute).map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s on a table in the trash is 404',
    async (_, route) => {
      const w = await world();
      const trashed = await call('delete-table', {
        token: w.owner.auth,
        params: { baseId: w.baseId, tableId: w.tableId },
      });
      expect(trashed.status).toBe(200);
      const res = await call(route.handler, { ...SAMPLES[route.handler](w), token: w.owner.auth });
      if (route.handler === 'delete-table-permanently') expect(res.status).toBe(200);
      else expect(res).toMatchObject({ status: 404, body: { code: 'not_found' } });
    },
  );

  it.each(
    TABLE.filter((r) => (r.actions as readonly string[]).includes('instance|admin')).map(
      (r) => [`${r.method} ${r.path}`, r] as const,
    ),
  )('%s by a user who is not an instance admin is 403', async (_, route) => {
    const w = await world();
    const res = await call(route.handler, { ...SAMPLES[route.handler](w), token: w.owner.auth });
    expect(res.status).toBe(403);
  });

  // Organization routes: only the organization's admins (403 for anyone else), 404 for an unknown one.
  const onOrgRoutes = ROUTES.filter((r) => r.path.includes('{organizationId}')).map(
    (r) => [`${r.method} ${r.path}`, r] as const,
  );
  it.each(onOrgRoutes)('%s by a user who is not the organization admin is 403', async (_, route) => {
    const w = await world();
    const outsider = await newUser();
    const res = await call(route.handler, { ...SAMPLES[route.handler](w), token: outsider.auth });
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('not an admin of the organization');
  });
  it.each(onOrgRoutes)('%s on an organization that does not exist is 404', async (_, route) => {
    const w = await world();
    const res = await call(route.handler, {
      ...SAMPLES[route.handler]({ ...w, organizationId: 'org0000000000000000' }),
      token: w.owner.auth,
    });
    expect(res).toMatchObject({ status: 404, body: { code: 'not_found' } });
  });
});

/**
 * What a route needs beyond its sample for the owner's call to succeed: something to move next
 * to, a notification, a mailed code, a date field, a started job. Admin routes get an admin's token.
 */
const SUCCEEDING: Partial<Record<HandlerName, (w: World) => Promise<CallOptions>>> = {
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
    return { params: { baseId: w.baseId, webhookId: w.webhookId, deliveryId } };
  },
  'upload-attachment-file': async (w) => {
    const signature = await call('sign-attachment-upload', {
      token: w.owner.auth,
      body: { contentType: 'text/plain', contentLength: 5, type: 1, baseId: w.baseId },
    });
    return {
      params: { token: signature.body.token },
      rawBody: 'hello',
      headers: { 'content-type': 'text/plain' },
    };
  },
  'notify-attachment': async (w) => {
    const { token } = await signAndPut(
      w.owner.auth,
      w.baseId,
      new TextEncoder().encode('hello'),
      'text/plain',
    );
    return { params: { token } };
  },
  'analyze-import-file': async (w) => ({
    query: `attachmentUrl=${(await uploadFile(w.owner.auth, w.baseId, new TextEncoder().encode('A,B\n1,2\n'), 'text/csv', 'a.csv')).token}&fileType=csv`,
  }),
  'import-table-from-file': async (w) => ({
    params: { baseId: w.baseId },
    body: {
      worksheets: {
        'Import Table': {
          name: 'T',
          columns: [{ type: 'singleLineText', name: 'A', sourceColumnIndex: 0 }],
          useFirstRowAsHeader: true,
          importData: true,
        },
      },
      attachmentUrl: (
        await uploadFile(w.owner.auth, w.baseId, new TextEncoder().encode('A\nx\n'), 'text/csv', 'a.csv')
      ).token,
      fileType: 'csv',
    },
  }),
  'inplace-import-table': async (w) => ({
    params: { baseId: w.baseId, tableId: w.tableId },
    body: {
      attachmentUrl: (
        await uploadFile(w.owner.auth, w.baseId, new TextEncoder().encode('A\nx\n'), 'text/csv', 'a.csv')
      ).token,
      fileType: 'csv',
      insertConfig: {
        sourceWorkSheetKey: 'Import Table',
        excludeFirstRow: true,
        sourceColumnMap: { [w.fieldId]: 0 },
      },
    },
  }),
  'read-attachment': async (w) => ({ params: { token: (await uploadFile(w.owner.auth, w.baseId)).token } }),
  'upload-record-attachment': async (w) => {
    const files = await call('create-field', {
      token: w.owner.auth,
      params: { tableId: w.tableId },
      body: { type: 'attachment', name: 'Files' },
    });
    return {
      params: { tableId: w.tableId, recordId: w.recordIds[0], fieldId: files.body.id },
      ...uploadForm({
        file: new TextEncoder().encode('hello'),
        filename: 'a.txt',
        contentType: 'text/plain',
      }),
    };
  },
  'update-table-order': async (w) => {
    const other = await call('create-table', {
      token: w.owner.auth,
      params: { baseId: w.baseId },
      body: { records: [] },
    });
    return { ...onBaseTable(w), body: { anchorId: other.body.id, position: 'after' } };
  },
  'update-base-order': async (w) => {
    const other = await call('create-base', { token: w.owner.auth, body: { spaceId: w.spaceId } });
    return { params: { baseId: w.baseId }, body: { anchorId: other.body.id, position: 'before' } };
  },
  'remove-collaborator': async (w) => {
    const other = await newUser();
    await call('add-collaborators', {
      token: w.owner.auth,
      params: { spaceId: w.spaceId },
      body: { collaborators: [{ principalId: other.id, principalType: 'user' }], role: 'viewer' },
    });
    return { params: { spaceId: w.spaceId }, query: `principalId=${other.id}&principalType=user` };
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
  // grouped, so the answer carries group points
  'list-records': async (w) => ({
    ...onTable(w),
    query: `take=1&groupBy=${encodeURIComponent(JSON.stringify([{ fieldId: w.fieldId, order: 'asc' }]))}`,
  }),
  'get-job': async (w) => {
    await call('delete-table-permanently', { token: w.owner.auth, ...onBaseTable(w) });
    return { params: { kind: 'table', resourceId: w.tableId } };
  },
};

/** A token of the owner made an instance admin, with every scope. */
const adminToken = async (w: World) => {
  await makeAdmin(w.owner.id);
  const { token } = await createOperatorToken(w.owner.id, {
    name: 'admin',
    scopes: [...SCOPES],
    expiredTime: future(),
  });
  return `Bearer ${token}`;
};

// The API description does not lie: the owner's call of every route succeeds with the answer
// `infra/answers.ts` describes (the schema `infra/openapi.ts` writes into the description).
describe('documented answers', () => {
  it.each(TABLE.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s answers as the API description says',
    async (_, route) => {
      const w = await world();
      const request = (await SUCCEEDING[route.handler]?.(w)) ?? SAMPLES[route.handler](w);
      const token = (route.actions as readonly string[]).includes('instance|admin')
        ? await adminToken(w)
        : w.owner.auth;
      const res = await call(route.handler, { ...request, token });
      expect(res.status, JSON.stringify(res.body)).toBe(route.status ?? 200);
      const answer = ANSWERS[route.handler];
      if (answer.kind === 'none') {
        expect(res.body).toBeUndefined();
        return;
      }
      const mediaTypes = answer.kind === 'text' ? answer.mediaTypes : ['application/json'];
      expect(mediaTypes).toContain(res.headers['content-type']?.split(';')[0]);
      const parsed = answer.schema.safeParse(res.body);
      expect(parsed.error?.issues ?? [], JSON.stringify(res.body).slice(0, 2000)).toEqual([]);
    },
  );
});
