import { describe, expect, it } from 'vitest';
import type { Role } from '#shared/auth/scopes.ts';
import { type HandlerName, ROUTES, type RouteDef } from '#shared/routes.ts';
import { uploadFile, uploadForm } from '#test/support/attachments.ts';
import { newUser } from '#test/support/fixtures.ts';
import { type CallOptions, call } from '#test/support/invoke.ts';
import { FIRST_CELL, PASTE_INTO_FIRST_CELL } from '#test/support/selections.ts';

/**
 * Roles × routes on tables and records: a collaborator with each role calls every route of a
 * table; the route is refused (403) exactly when the role lacks one of its actions. The expected
 * table is the contract's (auth-errors.md, "Roles"), written out here on its own.
 */
const CONTRACT: Record<Role, (action: string) => boolean> = {
  viewer: (a) => a.endsWith('|read'),
  commenter: (a) => a.endsWith('|read') || a === 'record|comment',
  editor: (a) =>
    a.endsWith('|read') ||
    a === 'record|comment' ||
    ['record|create', 'record|update', 'record|delete', 'view|create', 'view|update', 'view|delete'].includes(
      a,
    ),
  creator: (a) =>
    CONTRACT.editor(a) ||
    ['base|create', 'base|update', 'base|delete', 'space|invite'].includes(a) ||
    a.startsWith('table|') ||
    a.startsWith('field|'),
  owner: () => true,
};

interface World {
  baseId: string;
  tableId: string;
  /** A second table of the base (an anchor for table moves). */
  otherTableId: string;
  fieldId: string;
  /** A date field (the calendar route needs one). */
  dateFieldId: string;
  /** An attachment field (the upload route needs one). */
  filesFieldId: string;
  /** A CSV uploaded by the owner to the base (the import routes read one). */
  csvToken: string;
  viewId: string;
  /** The table's first view (the sample view is the second). */
  firstViewId: string;
  recordIds: [string, string];
  pluginId: string;
  pluginInstallIds: [string, string];
}

const SAMPLES: Partial<Record<HandlerName, (w: World) => CallOptions>> = {
  'create-table': (w) => ({ params: { baseId: w.baseId }, body: { name: 'T2', records: [] } }),
  'list-tables': (w) => ({ params: { baseId: w.baseId } }),
  'get-table': (w) => ({ params: { baseId: w.baseId, tableId: w.tableId } }),
  'update-table': (w) => ({ params: { baseId: w.baseId, tableId: w.tableId }, body: { name: 'R' } }),
  'delete-table': (w) => ({ params: { baseId: w.baseId, tableId: w.tableId } }),
  'delete-table-permanently': (w) => ({ params: { baseId: w.baseId, tableId: w.tableId } }),
  'get-default-view-id': (w) => ({ params: { baseId: w.baseId, tableId: w.tableId } }),
  'update-table-name': (w) => ({ params: { baseId: w.baseId, tableId: w.tableId }, body: { name: 'R' } }),
  'update-table-icon': (w) => ({ params: { baseId: w.baseId, tableId: w.tableId }, body: { icon: 'i' } }),
  'update-table-description': (w) => ({
    params: { baseId: w.baseId, tableId: w.tableId },
    body: { description: 'd' },
  }),
  'update-table-db-table-name': (w) => ({
    params: { baseId: w.baseId, tableId: w.tableId },
    body: { dbTableName: 'renamed' },
  }),
  'update-table-order': (w) => ({
    params: { baseId: w.baseId, tableId: w.tableId },
    body: { anchorId: w.otherTableId, position: 'before' },
  }),
  'get-table-permission': (w) => ({ params: { baseId: w.baseId, tableId: w.tableId } }),
  'create-field': (w) => ({ params: { tableId: w.tableId }, body: { type: 'number' } }),
  'list-fields': (w) => ({ params: { tableId: w.tableId } }),
  'get-field': (w) => ({ params: { tableId: w.tableId, fieldId: w.fieldId } }),
  'update-field': (w) => ({ params: { tableId: w.tableId, fieldId: w.fieldId }, body: { name: 'N' } }),
  'delete-field': (w) => ({ params: { tableId: w.tableId, fieldId: w.fieldId } }),
  'create-view': (w) => ({ params: { tableId: w.tableId }, body: { type: 'kanban' } }),
  'list-views': (w) => ({ params: { tableId: w.tableId } }),
  'get-view': (w) => ({ params: { tableId: w.tableId, viewId: w.viewId } }),
  'update-view': (w) => ({ params: { tableId: w.tableId, viewId: w.viewId }, body: { name: 'V' } }),
  'delete-view': (w) => ({ params: { tableId: w.tableId, viewId: w.viewId } }),
  'update-record-order': (w) => ({
    params: { tableId: w.tableId, viewId: w.viewId },
    body: { anchorId: w.recordIds[0], position: 'after', recordIds: [w.recordIds[1]] },
  }),
  'get-record': (w) => ({ params: { tableId: w.tableId, recordId: w.recordIds[0] } }),
  'get-record-history': (w) => ({ params: { tableId: w.tableId, recordId: w.recordIds[0] } }),
  'list-record-history': (w) => ({ params: { tableId: w.tableId } }),
  'list-records': (w) => ({ params: { tableId: w.tableId }, query: 'take=1' }),
  'update-record': (w) => ({
    params: { tableId: w.tableId, recordId: w.recordIds[0] },
    body: { record: { fields: { Name: 'x' } } },
  }),
  'delete-record': (w) => ({ params: { tableId: w.tableId, recordId: w.recordIds[0] } }),
  'upload-record-attachment': (w) => ({
    params: { tableId: w.tableId, recordId: w.recordIds[0], fieldId: w.filesFieldId },
    ...uploadForm({ file: new TextEncoder().encode('hello'), filename: 'a.txt', contentType: 'text/plain' }),
  }),
  'create-records': (w) => ({ params: { tableId: w.tableId }, body: { records: [{ fields: {} }] } }),
  'update-records': (w) => ({
    params: { tableId: w.tableId },
    body: { records: [{ id: w.recordIds[0], fields: { Name: 'y' } }] },
  }),
  'delete-records': (w) => ({ params: { tableId: w.tableId }, query: `recordIds[]=${w.recordIds[1]}` }),
  'duplicate-record': (w) => ({ params: { tableId: w.tableId, recordId: w.recordIds[0] }, body: {} }),
  'install-context-menu-plugin': (w) => ({ params: { tableId: w.tableId }, body: { pluginId: w.pluginId } }),
  'list-context-menu-plugins': (w) => ({ params: { tableId: w.tableId } }),
  'remove-context-menu-plugin': (w) => ({
    params: { tableId: w.tableId, pluginInstallId: w.pluginInstallIds[0] },
  }),
  'move-context-menu-plugin': (w) => ({
    params: { tableId: w.tableId, pluginInstallId: w.pluginInstallIds[1] },
    body: { anchorId: w.pluginInstallIds[0], position: 'before' },
  }),
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
  'convert-field': (w) => ({
    params: { tableId: w.tableId, fieldId: w.fieldId },
    body: { type: 'longText' },
  }),
  'delete-fields': (w) => ({ params: { tableId: w.tableId }, query: `fieldIds[]=${w.fieldId}` }),
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
  'get-record-status': (w) => ({
    params: { tableId: w.tableId, recordId: w.recordIds[0] },
    query: `viewId=${w.viewId}`,
  }),
  'get-selection-range-to-id': (w) => ({
    params: { tableId: w.tableId },
    query: 'ranges=[[0,0],[0,0]]&returnType=all',
  }),
  'copy-selection': (w) => ({ params: { tableId: w.tableId }, query: 'ranges=[[0,0],[0,0]]' }),
  'clear-selection': (w) => ({
    params: { tableId: w.tableId },
    body: FIRST_CELL,
  }),
  'delete-selection': (w) => ({ params: { tableId: w.tableId }, query: 'ranges=[[0,1],[0,1]]' }),
  'paste-selection': (w) => ({
    params: { tableId: w.tableId },
    body: PASTE_INTO_FIRST_CELL,
  }),
  'temporary-paste-selection': (w) => ({
    params: { tableId: w.tableId },
    body: PASTE_INTO_FIRST_CELL,
  }),
  'get-row-count': (w) => ({ params: { tableId: w.tableId } }),
  'export-table-csv': (w) => ({ params: { tableId: w.tableId } }),
  'inplace-import-table': (w) => ({
    params: { baseId: w.baseId, tableId: w.tableId },
    body: {
      attachmentUrl: w.csvToken,
      fileType: 'csv',
      insertConfig: {
        sourceWorkSheetKey: 'Import Table',
        excludeFirstRow: true,
        sourceColumnMap: { [w.fieldId]: 0 },
      },
    },
  }),
  'get-aggregations': (w) => ({ params: { tableId: w.tableId }, query: `field[count][]=${w.fieldId}` }),
  'get-group-points': (w) => ({
    params: { tableId: w.tableId },
    query: `groupBy=${encodeURIComponent(JSON.stringify([{ fieldId: w.fieldId, order: 'asc' }]))}`,
  }),
  'get-search-count': (w) => ({ params: { tableId: w.tableId }, query: 'search[]=a' }),
  'get-search-index': (w) => ({ params: { tableId: w.tableId }, query: 'search[]=a&take=10' }),
  'get-calendar-daily-collection': (w) => ({
    params: { tableId: w.tableId },
    query: `startDate=2024-01-01&endDate=2024-01-31&startDateFieldId=${w.dateFieldId}&endDateFieldId=${w.dateFieldId}`,
  }),
  'get-task-status-collection': (w) => ({ params: { tableId: w.tableId } }),
};

function onView(w: World) {
  return { params: { tableId: w.tableId, viewId: w.viewId } };
}

const TABLE_ROUTES = (ROUTES as readonly (RouteDef & { handler: HandlerName })[]).filter(
  (r) => r.path.includes('{tableId}') || r.path.startsWith('/base/{baseId}/table'),
);

const worldFor = async (role: Role) => {
  const owner = await newUser();
  const member = await newUser();
  const space = await call('create-space', { token: owner.auth, body: { name: 'Roles' } });
  const base = await call('create-base', { token: owner.auth, body: { spaceId: space.body.id } });
  if (role !== 'owner') {
    const added = await call('add-collaborators', {
      token: owner.auth,
      params: { spaceId: space.body.id },
      body: { collaborators: [{ principalId: member.id, principalType: 'user' }], role },
    });
    expect(added.status).toBe(201);
  }
  const table = await call('create-table', {
    token: owner.auth,
    params: { baseId: base.body.id },
    body: {
      views: [{ type: 'grid' }, { type: 'grid', name: 'Second' }],
      records: [{ fields: {} }, { fields: {} }],
    },
  });
  const other = await call('create-table', { token: owner.auth, params: { baseId: base.body.id }, body: {} });
  // A published plugin (installable by every role that may update the table), installed twice.
  const plugin = await call('create-plugin', {
    token: owner.auth,
    body: { name: 'Role plugin', logo: 'https://example.test/r.png', positions: ['contextMenu'] },
  });
  const admin = await newUser({ isAdmin: true });
  await call('publish-plugin', { token: admin.auth, params: { pluginId: plugin.body.id } });
  const install = () =>
    call('install-context-menu-plugin', {
      token: owner.auth,
      params: { tableId: table.body.id },
      body: { pluginId: plugin.body.id },
    });
  const installs = [await install(), await install()];
  const date = await call('create-field', {
    token: owner.auth,
    params: { tableId: table.body.id },
    body: { type: 'date', name: 'When' },
  });
  const files = await call('create-field', {
    token: owner.auth,
    params: { tableId: table.body.id },
    body: { type: 'attachment', name: 'Files' },
  });
  const w: World = {
    baseId: base.body.id,
    tableId: table.body.id,
    otherTableId: other.body.id,
    fieldId: table.body.fields[1].id,
    dateFieldId: date.body.id,
    filesFieldId: files.body.id,
    csvToken: (
      await uploadFile(owner.auth, base.body.id, new TextEncoder().encode('A\nx\n'), 'text/csv', 'a.csv')
    ).token,
    viewId: table.body.views[1].id,
    firstViewId: table.body.views[0].id,
    recordIds: [table.body.records[0].id, table.body.records[1].id],
    pluginId: plugin.body.id,
    pluginInstallIds: [installs[0]?.body.pluginInstallId, installs[1]?.body.pluginInstallId],
  };
  return { w, caller: role === 'owner' ? owner : member };
};

const cases = (['viewer', 'commenter', 'editor', 'creator', 'owner'] as const).flatMap((role) =>
  TABLE_ROUTES.map((route) => [role, `${route.method} ${route.path}`, route] as const),
);

describe('roles × table and record routes', () => {
  it('has a sample for every table and record route', () => {
    expect(TABLE_ROUTES.filter((r) => !SAMPLES[r.handler]).map((r) => r.handler)).toEqual([]);
  });

  it.each(cases)('%s: %s', async (role, _, route) => {
    const { w, caller } = await worldFor(role);
    const res = await call(route.handler, {
      ...(SAMPLES[route.handler] as (w: World) => CallOptions)(w),
      token: caller.auth,
    });
    const allowed = route.actions.every((a) => CONTRACT[role](a));
    if (allowed) expect(res.status, JSON.stringify(res.body)).toBeLessThan(400);
    else {
      expect(res.status).toBe(403);
      expect(res.body.message).toMatch(/^not allowed to operate \w+\|\w+ on /);
    }
  });
});
