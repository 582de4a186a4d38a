/**
 * The route list of `functions/README.md`, generated from the route table: `npm run docs` rewrites
 * the block between the markers, and a unit test fails when the list and the table disagree.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { API_PREFIX, type HandlerName, ROUTES, type RouteDef, resourceOf } from '#shared/routes.ts';

/** What each route is for, in words (kept out of the route table, which every Lambda bundles). */
export const ROUTE_SUMMARIES: Record<HandlerName, string> = {
  'get-openapi':
    "The API description (OpenAPI 3.1), generated from the route table and the handlers' schemas",
  'get-sign-in-page': 'A plain sign-in page (a form for POST /auth/signin), for people without the web app',
  'get-docs': 'The API reference page (Swagger UI over the API description; "try it" with a token)',
  'get-docs-asset': 'A script or style sheet of the reference page (from the npm package, no CDN)',
  'get-health': 'Liveness and version (`{status: "ok", version}`); no token, no database read',
  'list-trash':
    "The caller's trashed spaces (where it may delete spaces) or bases (where it may delete bases)",
  'list-trash-items': 'Trashed tables of a base, newest first',
  'restore-trash-item': 'Restore a trashed space, base or table (needs the delete right on it)',
  'reset-trash-items': 'Delete every trashed table of a base for good',
  'delete-trash-item': 'Delete a trashed space, base or table for good (needs the delete right on it)',
  'get-job':
    "Whether a background job you started is queued, running or done: a permanent delete (`space`, `base`, `table` and its id) or a rename's record rewrite (`userCells` and your user id)",
  'list-nodes':
    "The base's sidebar tree: nodes depth first, each with parentId and its place among its siblings",
  'create-node': 'Create a folder (at most 2 deep)',
  'move-node': 'Move a node before or after a sibling, or into a folder or the root',
  'delete-node':
    'Delete a node: a table to the trash, a dashboard, an empty folder (needs table|delete for a table, base|update otherwise)',
  'delete-node-permanently':
    "Delete a node's table, dashboard or empty folder for good (needs table|delete for a table, base|update otherwise)",
  'create-dashboard': 'Create a dashboard (its node goes to the end of the tree)',
  'list-dashboards': 'Dashboards of a base, in tree order',
  'get-dashboard': 'One dashboard with its layout and installed plugins',
  'rename-dashboard': 'Rename a dashboard',
  'delete-dashboard': 'Delete a dashboard with its plugin installs',
  'install-dashboard-plugin': 'Install a plugin on a dashboard (its box appended to the layout)',
  'remove-dashboard-plugin': 'Remove a plugin install and its box from a dashboard',
  'rename-dashboard-plugin': 'Rename a plugin installed on a dashboard',
  'update-dashboard-layout': "Set the boxes of a dashboard's plugin installs; answers the whole layout",
  'get-dashboard-plugin': 'One plugin install of a dashboard, with its storage',
  'update-dashboard-plugin-storage': "Replace a dashboard plugin install's stored JSON",
  'get-current-user': 'The calling user',
  'sign-up': 'Sign up with an email and a password (when the stage allows it); signed in at once',
  'sign-in': 'Sign in with an email and a password: the session cookie',
  'sign-out': "End the caller's session",
  'change-password': "Change the caller's password; ends every other session",
  'add-password': 'Give a user without a password one',
  'get-user-info': "The calling user, as Teable's user info",
  'rename-user': 'Rename the calling user',
  'create-temp-token': "A 10-minute JWT with the calling token's rights",
  'create-access-token': 'Create a personal access token',
  'list-access-tokens': "The caller's personal access tokens",
  'update-access-token': 'Rename or re-scope a token',
  'replace-access-token': "Replace a token's name, description, scopes and limits",
  'get-access-token': 'One of your tokens, without its text',
  'refresh-access-token': 'New secret and expiry; the old secret stops working',
  'delete-access-token': 'Revoke a token at once',
  'create-user': 'Create a user and its first token (instance admin)',
  'create-space': 'Create a space; the caller becomes its owner',
  'list-spaces': 'Spaces the caller belongs to',
  'get-space': "One space with the caller's role",
  'update-space': 'Rename a space',
  'delete-space': 'Move a space to the trash',
  'delete-space-permanently': 'Delete a space and everything in it for good',
  'list-collaborators': 'Collaborators of a space',
  'add-collaborators': 'Add users to a space with a role',
  'add-collaborator': 'Add users to a space with a role (singular path)',
  'update-collaborator': "Change a collaborator's role",
  'remove-collaborator': 'Remove a collaborator (oneself, or anyone with space|grant_role)',
  'create-base': 'Create a base in a space',
  'list-bases': 'Bases of a space',
  'get-base': 'One base',
  'sign-attachment-upload': 'Sign an upload of a file to a base: the URL to PUT its bytes to, and its token',
  'upload-attachment-file':
    "Upload a signed file's bytes through the API (small files; the signature's URL takes any size)",
  'notify-attachment':
    "Confirm an upload: its real size, its type read from its bytes, an image's width and height",
  'analyze-import-file': "The columns of an uploaded CSV's head, with the types an import would give them",
  'import-table-from-file':
    'A new table from an uploaded CSV; its rows are imported in the background (GET /job/import/{tableId})',
  'inplace-import-table':
    "An uploaded CSV's rows appended to a table through a column map, in the background",
  'export-table-csv':
    'A table, or a view of it, as CSV (UTF-8 with BOM, RFC 4180, cells as text); a large one redirects to a download',
  'read-attachment':
    'Download a file (a redirect to a short-lived URL), for its uploader or a reader of its base',
  'upload-record-attachment':
    "Add a file to a record's attachment cell: a multipart form's file, or one fetched from fileUrl",
  'get-record-history': "A record's history: each field a caller changed, newest first",
  'list-record-history': "A table's record history: each field a caller changed, newest first",
  'list-changes': "The base's change feed: every change in seq order, from a cursor",
  'create-webhook': 'Create a webhook of a base (its signing secret is answered here only)',
  'list-webhooks': "List a base's webhooks (no secrets)",
  'get-webhook': 'Get a webhook: settings and delivery state',
  'update-webhook': "Change a webhook's URL, events, filters or description; disable or enable it",
  'delete-webhook': 'Delete a webhook',
  'rotate-webhook-secret': 'A new signing secret; the old one keeps signing for 24 h',
  'list-webhook-deliveries': "A webhook's delivery attempts, newest first",
  'redeliver-webhook': "Send a delivery's event again (same event id)",
  'update-base': 'Rename a base or change its icon',
  'delete-base': 'Move a base to the trash',
  'delete-base-permanently': 'Delete a base and everything in it for good',
  'list-accessible-bases': 'Every base the token may reach, with your role',
  'update-base-order': 'Move a base before or after another base of its space',
  'move-base': 'Move a base to another space (placed last)',
  'get-base-permission': 'Which actions you may take on a base',
  'list-base-collaborators': "A base's collaborators (its space's members)",
  'list-base-collaborator-users': 'Users a user cell of the base may hold',
  'create-table': 'Create a table with fields, views and records',
  'list-tables': 'Tables of a base',
  'get-table': 'One table',
  'update-table': 'Rename a table, change its description or icon',
  'delete-table': 'Move a table to the trash',
  'delete-table-permanently': 'Delete a table and its records for good',
  'get-default-view-id': "The id of the table's first view",
  'update-table-name': 'Rename a table',
  'update-table-icon': "Change a table's icon",
  'update-table-description': "Change or clear a table's description",
  'update-table-db-table-name': "Change a table's database name",
  'update-table-order': 'Move a table before or after another table',
  'get-table-permission': 'Which actions you may take on a table, its views, fields and records',
  'create-field': 'Create a field',
  'list-fields':
    "Fields of a table (in a view's column order with viewId; its hidden ones left out with filterHidden=true; excludeFieldIds left out)",
  'get-field': 'One field',
  'plan-field-create':
    'How many cells creating this field writes, and about how long (ms); the definition is checked as the create checks it',
  'plan-field-convert':
    'How many cells this conversion rewrites, and about how long; `{skip: true}` when none (a new name or description)',
  'plan-field': 'How many cells computing this field again writes, and about how long',
  'update-field': "Change a field's name, description, dbFieldName or options",
  'convert-field': "Changes a field's type and options; every cell is converted and dependents follow",
  'delete-field': 'Delete a field (not the primary field)',
  'delete-fields': 'Delete several fields (`fieldIds[]=…`) in one write, all or none (not the primary field)',
  'create-view': 'Create a view',
  'list-views': 'Views of a table, in order',
  'get-view': 'One view',
  'update-view': "Change a view's name, filter, sort, group, columns or options",
  'delete-view': 'Delete a view (not the last one)',
  'update-record-order': "Place records before or after an anchor in a view's manual order",
  'update-view-name': 'Rename a view (names may repeat)',
  'update-view-description': "Set a view's description",
  'update-view-filter': "Replace a view's filter (null clears it)",
  'update-view-sort': "Replace a view's sort (null clears it)",
  'update-view-group': "Replace a view's group levels, at most 3 (null clears them)",
  'update-view-options': "Merge options into a view's options",
  'update-view-column-meta':
    'Merge column metadata (order, width, hidden, visible, required, statisticFunc) per field',
  'move-view': 'Move a view before or after another view of the table',
  'apply-view-manual-sort': "Sort every record once into the view's manual order (the view's sort untouched)",
  'update-view-locked': 'Lock or unlock a view',
  'list-field-filter-link-records': "Records named by a link field's picker filter, with titles, per table",
  'list-view-filter-link-records':
    "Records named by the link-field items of a view's filter, with titles, per table",
  'list-records': 'Records of a table: view order, filter, sort, groups, search, link-cell pickers, paging',
  'get-selection-range-to-id': 'The record and field ids a grid selection covers',
  'copy-selection': "A grid selection's cells as tab-separated text, with the covered fields",
  'clear-selection': 'Empties the cells a grid selection covers (computed ones skipped), in one write',
  'paste-selection':
    "Pastes text or rows of cells from a selection's top-left cell (typecast); grows records and fields",
  'temporary-paste-selection':
    'The typecast values a paste would write, one entry per pasted row; writes nothing',
  'delete-selection': 'Deletes the records a grid selection covers, for good, in one write',
  'get-row-count': 'How many records the list would answer with the same query, all pages',
  undo: "Undo the caller's last record write in this window (`X-Window-Id`): a new write from the change log; `failed` saying why when cells changed since",
  redo: 'Redo what undo undid in this window: a new write from the change log; `failed` saying why when cells changed since',
  'get-comment-counts': "Comment counts of the table's records: always empty, comments are not built",
  'get-record-comment-count': "A record's comment count: always 0, comments are not built",
  'get-instance-settings':
    'The instance settings the web app reads: whether sign-up is closed, space creation and invitations open',
  'get-aggregations':
    'Column statistics (count, sum, dates, …) of the records the list would answer, whole and per group',
  'get-group-points': 'The group points the list would answer for a groupBy',
  'get-search-count': 'How many cells match a search',
  'get-search-index': "Search hits in list order, with their records' positions",
  'get-calendar-daily-collection':
    "Per day of a window, how many records' date spans cover it, and those records",
  'get-task-status-collection': 'Cells being filled by AI tasks: always none',
  'create-query-params': 'Save listing parameters for 24 hours; answers a queryId',
  'get-record': 'One record (ETag)',
  'update-record': 'Update one record (If-Match)',
  'delete-record': 'Delete one record for good (If-Match)',
  'create-records':
    'Create 0..1000 records, or with performUpsert create or update each by its key (Idempotency-Key)',
  'update-records': 'Update 1..1000 records (Idempotency-Key)',
  'delete-records':
    'Delete 1..1000 records for good: ids in the query (`recordIds[]=…`) or in a JSON body `{"recordIds": [...]}` (large batches), not both',
  'duplicate-record': 'Copy a record (Idempotency-Key)',
  'get-record-status': 'Whether a record exists and whether a listing with the same parameters shows it',
  'list-notifications': "The caller's notifications, newest first, 10 a page",
  'count-unread-notifications': 'How many notifications are unread',
  'mark-all-notifications-read': 'Mark every notification read',
  'create-organization': 'Create an organization; the caller becomes its admin',
  'get-organization': 'One organization with its domains (its admins)',
  'add-organization-domain': 'Add a domain to an organization (pending)',
  'list-organization-domains': "An organization's domains and their status",
  'delete-organization-domain': 'Remove a domain (releases it when verified)',
  'verify-organization-domain': 'Verify a domain with the mailed code (five wrong codes void it)',
  'send-domain-verification-email':
    'Mail a 6-digit code (30 minutes) to an address at the domain; one a minute',
  'update-notification-status': 'Mark one notification read or unread',
  'list-pins':
    "The caller's pinned spaces and bases in their order, named; those it can no longer read (deleted, in the trash, left) are left out",
  'add-pin': 'Pin a space or base you can read, last in your list (pinned already: kept where it is)',
  'delete-pin': 'Unpin a space or base (`type` and `id` in the query); one not pinned is no error',
  'update-pin-order': 'Move one of your pins right before or after another (404 for one not pinned)',
  'create-plugin': 'Create a plugin (developing until an instance admin publishes it)',
  'list-plugins': "Published plugins and the caller's own",
  'get-plugin': 'One plugin (a developing one: its creator and instance admins only)',
  'delete-plugin': 'Delete a plugin (its creator or an instance admin); installs stay',
  'publish-plugin': 'Publish a plugin (instance admin)',
  'unpublish-plugin-as-admin': 'Take a plugin back to developing (instance admin); installs stay',
  'update-plugin': 'Replace a plugin (its creator); the status stays',
  'list-plugin-center': 'Published plugins with their creators, by position or id',
  'submit-plugin': 'Submit a developing plugin for review (its creator)',
  'unpublish-plugin': 'Take a plugin back to developing (its creator); installs stay',
  'install-context-menu-plugin': "Install a plugin at the end of a table's context menu",
  'list-context-menu-plugins': "A table's context-menu plugins, in order",
  'remove-context-menu-plugin': "Remove a plugin from a table's context menu",
  'move-context-menu-plugin': 'Move a context-menu plugin before or after another',
  'get-context-menu-plugin': "One plugin of a table's context menu, with its plugin's url and config",
  'rename-context-menu-plugin': "Rename a plugin of a table's context menu",
  'update-context-menu-plugin-storage': "Replace a context-menu plugin's stored JSON",
  'get-context-menu-plugin-storage': "A context-menu plugin's stored JSON ({} if never set)",
};

export const START = '<!-- routes:start (generated by `npm run docs` from shared/routes.ts) -->';
export const END = '<!-- routes:end -->';

/** What a caller needs for a route, in words (the README table, the API description). Pure. */
export const needsOf = (r: RouteDef): string => {
  const who =
    r.auth === 'personal'
      ? 'a personal token or a session'
      : r.auth === 'none'
        ? 'nothing (no token)'
        : r.auth === 'password'
          ? 'an email and password (no token)'
          : 'any valid token or a session';
  const actions = r.actions as readonly string[];
  const outsideSpaces = actions.every((a) => /^(enterprise|plugin|instance)\|/.test(a));
  if (resourceOf(r)?.kind === 'node')
    return `${actions.join(', ')} and the delete right on the node's resource: table|delete for a table, base|update for a dashboard or folder (role and token scope)`;
  return !actions.length
    ? who
    : outsideSpaces
      ? `${actions.join(', ')} (token scope)${actions.includes('instance|admin') ? ' and an instance admin' : ''}${r.path.includes('{organizationId}') ? ' and organization admin' : ''}`
      : `${actions.join(', ')} (role and token scope)`;
};

/** The markdown table of every route. Pure. */
export const renderRouteTable = (routes: readonly RouteDef[] = ROUTES): string => {
  const rows = routes.map((r) => {
    // A pipe inside a cell must be escaped, or it splits the cell.
    return `| ${r.method} | \`${API_PREFIX}${r.path}\` | ${ROUTE_SUMMARIES[r.handler as HandlerName]} | ${needsOf(r).replaceAll('|', '\\|')} | \`functions/${r.handler}.ts\` |`;
  });
  return ['| method | path | what | needs | code |', '|---|---|---|---|---|', ...rows].join('\n');
};

/** The README text with the generated block replaced. Pure. */
export const withRouteTable = (readme: string): string => {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error('README has no route-table markers');
  return `${readme.slice(0, start + START.length)}\n${renderRouteTable()}\n${readme.slice(end)}`;
};

if (process.argv.includes('--write')) {
  const file = new URL('../../functions/README.md', import.meta.url);
  writeFileSync(file, withRouteTable(readFileSync(file, 'utf8')));
}
