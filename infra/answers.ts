/**
 * The success answer of every route, as zod schemas: what `infra/openapi.ts` shows in the API
 * description and what `test/integration/route-matrix.test.ts` ("documented answers") checks each
 * route's real answer against.
 * Docs and tests only: nothing under `functions/` or `shared/` imports this module (a unit test
 * keeps it so), so no Lambda bundle carries it.
 *
 * Read from the code each route runs (`functions/<handler>.ts` and the `shared/` function it calls)
 * and the contract. Fields the server always sends are required, the others optional; objects may
 * carry more than they list (`looseObject`), and record cells are any JSON (`fields.md` gives each
 * type's cell shape).
 */
import * as z from 'zod/mini';
import { ROLES, SCOPES } from '#shared/auth/scopes.ts';
import { CHANGE_TYPES } from '#shared/entities/change-log.ts';
import { PIN_TYPES } from '#shared/entities/pins.ts';
import { PLUGIN_POSITIONS, PLUGIN_STATUSES } from '#shared/entities/plugins.ts';
import { FIELD_TYPES } from '#shared/fields/field-types.ts';
import { ID_PREFIX, type IdKind } from '#shared/ids.ts';
import { JOB_KINDS } from '#shared/jobs/purge-job.ts';
import { STATISTIC_FUNCS } from '#shared/query/statistics.ts';
import type { HandlerName } from '#shared/routes.ts';
import { VIEW_TYPES } from '#shared/schema/schema.ts';

/** A success answer: JSON of a shape, text of a media type, or no body at all. */
export type Answer =
  | { readonly kind: 'json'; readonly schema: z.ZodMiniType }
  | { readonly kind: 'text'; readonly schema: z.ZodMiniType; readonly mediaTypes: readonly string[] }
  | { readonly kind: 'none' };

const json = (schema: z.ZodMiniType): Answer => ({ kind: 'json', schema });
const text = (...mediaTypes: string[]): Answer => ({ kind: 'text', schema: z.string(), mediaTypes });
/** The route answers its success status with an empty body. */
const NONE: Answer = { kind: 'none' };

// ---- Scalars

/** An id of the contract: its prefix and 16 base62 characters (README, "Identifiers"). */
const id = (kind: IdKind) => z.string().check(z.regex(new RegExp(`^${ID_PREFIX[kind]}[0-9A-Za-z]{16}$`)));
/** A schema with a description the API description shows. */
const doc = <T extends z.ZodMiniType>(schema: T, description: string): T =>
  schema.check(z.meta({ description }));

/** A time as the API writes it: ISO 8601 in UTC. */
const time = doc(z.iso.datetime(), 'ISO 8601 time in UTC');
const count = z.int().check(z.minimum(0));
/** A JSON object of any keys. */
const jsonObject = z.record(z.string(), z.unknown());
const role = z.enum(ROLES);
const avatar = doc(z.null(), 'Always null: no avatars are stored');

// ---- Building blocks (each becomes a component of the API description)

export const USER = z.looseObject({ id: id('user'), name: z.string(), avatar, email: z.string() });
/** The calling user as Teable's `userMeVoSchema` takes it. */
const USER_ME = z.extend(USER, {
  notifyMeta: z.looseObject({ email: z.boolean() }),
  hasPassword: z.boolean(),
  isAdmin: z.boolean(),
});

export const ACCESS_TOKEN = z.looseObject({
  id: id('accessToken'),
  name: z.string(),
  description: z.nullable(z.string()),
  scopes: z.array(z.enum(SCOPES)),
  spaceIds: z.nullable(z.array(id('space'))),
  baseIds: z.nullable(z.array(id('base'))),
  expiredTime: time,
  createdTime: time,
  lastUsedTime: z.nullable(time),
  hasFullAccess: z.boolean(),
});

/** A token with its text, which only its create and refresh answers show. */
/** Teable's undo/redo answer; `failed` with a message while undo is not built. */
const UNDO_ANSWER = z.object({
  status: z.enum(['fulfilled', 'failed', 'empty']),
  errorMessage: z.optional(z.string()),
});

/** A field's calculation plan: cells the write computes or converts, and about how long (ms). */
const FIELD_PLAN = z.object({ estimateTime: count, updateCellCount: count });

const ACCESS_TOKEN_WITH_TEXT = z.extend(ACCESS_TOKEN, { token: z.string() });

export const SPACE = z.looseObject({ id: id('space'), name: z.string() });

export const COLLABORATOR = z.looseObject({
  userId: id('user'),
  userName: z.string(),
  email: z.string(),
  role,
  avatar,
  createdTime: time,
  type: z.literal('user'),
  resourceType: z.literal('space'),
});

export const BASE = z.looseObject({
  id: id('base'),
  name: z.string(),
  icon: z.nullable(z.string()),
  spaceId: id('space'),
});

export const FIELD = z.looseObject({
  id: id('field'),
  name: z.string(),
  type: z.enum(FIELD_TYPES),
  description: z.optional(z.nullable(z.string())),
  options: jsonObject,
  dbFieldName: z.string(),
  isPrimary: z.optional(z.boolean()),
  isComputed: z.optional(z.boolean()),
  isLookup: z.optional(z.boolean()),
  lookupOptions: z.optional(z.nullable(jsonObject)),
  notNull: z.optional(z.boolean()),
  unique: z.optional(z.boolean()),
  cellValueType: z.enum(['string', 'number', 'boolean', 'dateTime']),
  isMultipleCellValue: z.optional(z.boolean()),
  dbFieldType: z.optional(z.string()),
  hasError: z.optional(z.boolean()),
});

const SORT_ITEM = z.looseObject({ fieldId: id('field'), order: z.enum(['asc', 'desc']) });

export const VIEW = z.looseObject({
  id: id('view'),
  name: z.string(),
  type: z.enum(VIEW_TYPES),
  order: z.number(),
  filter: doc(
    z.nullable(z.looseObject({ conjunction: z.enum(['and', 'or']), filterSet: z.array(z.unknown()) })),
    'The filter as checked and stored: field references are ids',
  ),
  sort: z.nullable(z.looseObject({ sortObjs: z.array(SORT_ITEM), manualSort: z.optional(z.boolean()) })),
  group: z.nullable(z.array(SORT_ITEM)),
  columnMeta: z.record(
    z.string(),
    z.looseObject({
      order: z.number(),
      width: z.optional(z.number()),
      hidden: z.optional(z.boolean()),
      visible: z.optional(z.boolean()),
      required: z.optional(z.boolean()),
      statisticFunc: z.optional(z.nullable(z.string())),
    }),
  ),
  options: jsonObject,
  description: z.optional(z.string()),
  isLocked: z.optional(z.boolean()),
  createdBy: id('user'),
  createdTime: time,
  lastModifiedTime: time,
});

export const TABLE = z.looseObject({
  id: id('table'),
  name: z.string(),
  dbTableName: z.string(),
  description: z.nullable(z.string()),
  icon: z.nullable(z.string()),
  order: z.number(),
  defaultViewId: z.nullable(id('view')),
  lastModifiedTime: time,
});

export const RECORD = doc(
  z.looseObject({
    id: id('record'),
    name: doc(z.string(), 'The text of the primary field, "" when empty'),
    fields: doc(
      jsonObject,
      "Cells keyed by field name, id or dbFieldName (`fieldKeyType`), each of its type's shape; empty cells are left out",
    ),
    autoNumber: count,
    createdTime: time,
    lastModifiedTime: time,
    createdBy: doc(z.string(), 'The name of the user who created it'),
    lastModifiedBy: doc(z.string(), 'The name of the user who changed it last'),
    permissions: doc(
      z.record(z.string(), z.looseObject({ read: z.literal(true), update: z.boolean() })),
      "The caller's rights per cell, keyed as `fields`",
    ),
    undeletable: z.boolean(),
  }),
  'A record',
);

const RECORDS = z.looseObject({ records: z.array(RECORD) });

export const GROUP_POINT = z.union([
  z.looseObject({
    id: z.string(),
    type: z.literal(0),
    depth: count,
    value: z.unknown(),
    isCollapsed: z.boolean(),
  }),
  z.looseObject({ type: z.literal(1), count }),
]);

const STATISTIC = z.looseObject({
  value: z.nullable(z.union([z.number(), z.string()])),
  aggFunc: z.enum(STATISTIC_FUNCS),
});

export const FILTER_LINK_RECORDS = z.looseObject({
  tableId: id('table'),
  records: z.array(z.looseObject({ id: id('record'), title: z.string() })),
});

export const PLUGIN = z.looseObject({
  id: id('plugin'),
  name: z.string(),
  description: z.optional(z.string()),
  detailDesc: z.optional(z.string()),
  logo: z.string(),
  positions: z.array(z.enum(PLUGIN_POSITIONS)),
  url: z.optional(z.string()),
  helpUrl: z.optional(z.string()),
  i18n: z.optional(jsonObject),
  config: z.optional(jsonObject),
  secret: doc(z.string(), 'In full only in the answer of the create; masked everywhere else'),
  status: z.enum(PLUGIN_STATUSES),
  createdBy: id('user'),
  createdTime: time,
  lastModifiedTime: time,
});

export const CENTER_PLUGIN = z.looseObject({
  id: id('plugin'),
  name: z.string(),
  description: z.optional(z.string()),
  detailDesc: z.optional(z.string()),
  logo: z.string(),
  helpUrl: z.optional(z.string()),
  i18n: z.optional(jsonObject),
  url: z.optional(z.string()),
  status: z.enum(PLUGIN_STATUSES),
  createdTime: time,
  lastModifiedTime: time,
  createdBy: USER,
});

export const CONTEXT_MENU_ITEM = z.looseObject({
  pluginInstallId: id('pluginInstall'),
  name: z.string(),
  order: count,
  pluginId: id('plugin'),
  logo: z.string(),
});

const LAYOUT_BOX = z.looseObject({
  pluginInstallId: id('pluginInstall'),
  x: count,
  y: count,
  w: count,
  h: count,
});

export const DASHBOARD = z.looseObject({
  id: id('dashboard'),
  name: z.string(),
  layout: z.array(LAYOUT_BOX),
  pluginMap: z.record(
    z.string(),
    z.looseObject({
      id: id('plugin'),
      pluginInstallId: id('pluginInstall'),
      name: z.string(),
      positionId: id('dashboard'),
      position: z.literal('dashboard'),
      url: z.optional(z.string()),
    }),
  ),
});

export const DASHBOARD_SUMMARY = z.looseObject({ id: id('dashboard'), name: z.string() });

export const NODE = z.looseObject({
  id: id('node'),
  parentId: z.nullable(id('node')),
  resourceType: z.enum(['table', 'dashboard', 'folder']),
  resourceId: z.string(),
  order: doc(count, 'The position among its visible siblings, 0 first'),
  resourceMeta: z.looseObject({ name: z.string(), icon: z.optional(z.string()) }),
});

export const TRASH_ITEM = z.looseObject({
  id: id('trash'),
  resourceId: z.string(),
  resourceType: z.enum(['space', 'base', 'table']),
  deletedTime: time,
  deletedBy: z.string(),
});

export const TRASH_PAGE = z.looseObject({
  trashItems: z.array(TRASH_ITEM),
  userMap: z.record(z.string(), USER),
  resourceMap: z.record(
    z.string(),
    z.looseObject({ id: z.string(), name: z.string(), spaceId: z.optional(id('space')) }),
  ),
  nextCursor: z.nullable(id('trash')),
});

export const NOTIFICATION = z.looseObject({
  id: id('notification'),
  notifyType: z.enum(['system', 'collaboratorCellTag', 'collaboratorMultiRowTag']),
  notifyIcon: doc(
    z.nullable(jsonObject),
    "Who caused it (`{userId, userName}`), or `{iconUrl: null}` for the system's own",
  ),
  message: z.string(),
  url: z.string(),
  isRead: z.boolean(),
  createdTime: time,
});

export const ORGANIZATION_DOMAIN = z.looseObject({
  domain: z.string(),
  status: z.enum(['pending', 'verified']),
  createdTime: time,
  verifiedTime: z.optional(time),
});

const ORGANIZATION_REF = z.looseObject({ id: id('organization'), name: z.string() });

export const PERMISSIONS = doc(
  z.record(z.string(), z.boolean()),
  'Per action (`table|read`, `record|update`…): whether the caller may do it, by role and token',
);

/** A webhook as its routes answer it (data-flow.md 4): never its secrets. */
const WEBHOOK = z.object({
  id: id('webhook'),
  baseId: id('base'),
  url: z.string(),
  events: z.array(z.enum(CHANGE_TYPES)),
  tableIds: z.optional(z.array(id('table'))),
  fieldIds: z.optional(z.array(id('field'))),
  includePrevious: z.boolean(),
  description: z.optional(z.string()),
  isEnabled: z.boolean(),
  disabledReason: z.optional(z.string()),
  failuresInARow: z.number(),
  createdBy: id('user'),
  createdTime: time,
  lastModifiedTime: z.optional(time),
});

/** A pin of the caller's (Teable's pin): what is pinned and its place in the list (by `order`). */
const PIN = z.looseObject({
  id: z.union([id('space'), id('base')]),
  type: z.enum(PIN_TYPES),
  order: doc(z.number(), 'The list is in this order, lowest first'),
});

/** A pin as the list answers it (Teable's `IGetPinListVoSchema`): with the name to show. */
const PIN_LISTED = z.extend(PIN, {
  name: z.string(),
  icon: doc(z.optional(z.string()), "A base's icon, when it has one"),
});

/** The building blocks by the name the API description gives them (`#/components/schemas/<name>`). */
export const ANSWER_BLOCKS: Readonly<Record<string, z.ZodMiniType>> = {
  User: USER,
  AccessToken: ACCESS_TOKEN,
  Space: SPACE,
  Collaborator: COLLABORATOR,
  Base: BASE,
  Field: FIELD,
  View: VIEW,
  Table: TABLE,
  Record: RECORD,
  Records: RECORDS,
  GroupPoint: GROUP_POINT,
  FilterLinkRecords: FILTER_LINK_RECORDS,
  Plugin: PLUGIN,
  CenterPlugin: CENTER_PLUGIN,
  ContextMenuItem: CONTEXT_MENU_ITEM,
  Dashboard: DASHBOARD,
  DashboardSummary: DASHBOARD_SUMMARY,
  Node: NODE,
  TrashItem: TRASH_ITEM,
  TrashPage: TRASH_PAGE,
  Notification: NOTIFICATION,
  Pin: PIN,
  ListedPin: PIN_LISTED,
  OrganizationDomain: ORGANIZATION_DOMAIN,
  Permissions: PERMISSIONS,
  Webhook: WEBHOOK,
  FieldPlan: FIELD_PLAN,
  UndoRedo: UNDO_ANSWER,
};

// ---- Every route's answer

const plugin = { pluginId: id('plugin'), pluginInstallId: id('pluginInstall') };

/** Teable's record history page (`recordHistoryVoSchema`). */
const HISTORY_STATE = z.object({
  meta: z.looseObject({ name: z.string(), type: z.string(), cellValueType: z.string() }),
  data: z.unknown(),
});
const RECORD_HISTORY = z.object({
  historyList: z.array(
    z.object({
      id: z.string(),
      tableId: id('table'),
      recordId: id('record'),
      fieldId: id('field'),
      before: HISTORY_STATE,
      after: HISTORY_STATE,
      createdTime: time,
      createdBy: z.string(),
    }),
  ),
  userMap: z.record(z.string(), z.looseObject({ id: z.string(), name: z.string(), email: z.string() })),
  nextCursor: z.nullable(z.string()),
});

/** Each route's success answer, by handler (the type checker wants one for every route). */
export const ANSWERS: Record<HandlerName, Answer> = {
  // Operations and the description itself
  'get-health': json(
    z.looseObject({
      status: z.literal('ok'),
      version: z.string(),
      capture: z.optional(z.object({ lagSeconds: z.number() })),
    }),
  ),
  'get-openapi': json(
    z.looseObject({
      openapi: z.string(),
      info: z.looseObject({ title: z.string(), version: z.string() }),
      paths: jsonObject,
      components: jsonObject,
    }),
  ),
  'get-docs': text('text/html'),
  'get-sign-in-page': text('text/html'),
  'get-docs-asset': text('text/javascript', 'text/css'),

  // Users and tokens
  'get-current-user': json(USER_ME),
  // Sign-in: the user as `GET /auth/user/me` answers it, and the session cookie (Set-Cookie)
  'sign-up': json(USER_ME),
  'sign-in': json(USER_ME),
  'sign-out': NONE,
  'change-password': NONE,
  'add-password': NONE,
  'get-user-info': json(USER),
  'rename-user': NONE,
  'create-temp-token': json(z.looseObject({ accessToken: z.string(), expiresTime: time })),
  'create-access-token': json(ACCESS_TOKEN_WITH_TEXT),
  'list-access-tokens': json(z.array(ACCESS_TOKEN)),
  'update-access-token': json(ACCESS_TOKEN),
  'replace-access-token': json(ACCESS_TOKEN),
  'get-access-token': json(ACCESS_TOKEN),
  'refresh-access-token': json(ACCESS_TOKEN_WITH_TEXT),
  'delete-access-token': NONE,
  'create-user': json(
    z.looseObject({ id: id('user'), name: z.string(), email: z.string(), token: z.string() }),
  ),

  // Spaces and collaborators
  'create-space': json(SPACE),
  'list-spaces': json(z.array(z.extend(SPACE, { role }))),
  'get-space': json(z.extend(SPACE, { role: z.nullable(role), createdTime: time })),
  'update-space': json(SPACE),
  'delete-space': NONE,
  'delete-space-permanently': NONE,
  'list-collaborators': json(
    z.looseObject({ collaborators: z.array(COLLABORATOR), total: count, uniqTotal: count }),
  ),
  'add-collaborators': NONE,
  'add-collaborator': NONE,
  'update-collaborator': NONE,
  'remove-collaborator': NONE,

  // Bases
  'create-base': json(BASE),
  'list-bases': json(z.array(BASE)),
  'get-base': json(
    z.extend(BASE, { role: z.optional(role), collaboratorType: z.optional(z.literal('space')) }),
  ),
  'sign-attachment-upload': json(
    z.object({
      url: z.string(),
      uploadMethod: z.string(),
      token: z.string(),
      requestHeaders: z.record(z.string(), z.unknown()),
    }),
  ),
  'upload-attachment-file': NONE,
  'notify-attachment': json(
    z.object({
      token: z.string(),
      size: z.number(),
      url: z.string(),
      path: z.string(),
      mimetype: z.string(),
      width: z.optional(z.number()),
      height: z.optional(z.number()),
      presignedUrl: z.string(),
    }),
  ),
  'read-attachment': NONE,
  // small exports answer the CSV; larger ones a 302 to the file in the bucket
  'export-table-csv': text('text/csv'),
  'upload-record-attachment': json(RECORD),
  'get-record-history': json(RECORD_HISTORY),
  'list-record-history': json(RECORD_HISTORY),
  'list-changes': json(
    z.object({
      changes: z.array(
        z.looseObject({
          seq: z.number(),
          id: z.string().check(z.regex(/^evt[0-9A-Za-z]{16}$/)),
          type: z.enum(CHANGE_TYPES),
          baseId: id('base'),
          tableId: id('table'),
          actor: z.looseObject({ id: z.string() }),
          occurredAt: time,
          txId: z.string(),
        }),
      ),
      cursor: z.string(),
      hasMore: z.boolean(),
    }),
  ),
  'create-webhook': json(
    z.extend(WEBHOOK, { secret: z.string().check(z.regex(/^whsec_[A-Za-z0-9+/]{32}$/)) }),
  ),
  'list-webhooks': json(z.object({ webhooks: z.array(WEBHOOK) })),
  'get-webhook': json(WEBHOOK),
  'update-webhook': json(WEBHOOK),
  'delete-webhook': NONE,
  'rotate-webhook-secret': json(
    z.extend(WEBHOOK, { secret: z.string().check(z.regex(/^whsec_[A-Za-z0-9+/]{32}$/)) }),
  ),
  'list-webhook-deliveries': json(
    z.object({
      deliveries: z.array(
        z.object({
          id: id('delivery'),
          eventId: z.string(),
          attempt: z.number(),
          status: z.enum(['succeeded', 'failed', 'pending']),
          statusCode: z.optional(z.number()),
          latencyMs: z.optional(z.number()),
          error: z.optional(z.string()),
          attemptedAt: time,
        }),
      ),
      nextCursor: z.nullable(id('delivery')),
    }),
  ),
  'redeliver-webhook': json(z.object({ deliveryId: id('delivery'), eventId: z.string() })),
  'update-base': json(BASE),
  'delete-base': NONE,
  'delete-base-permanently': NONE,
  'list-accessible-bases': json(z.array(z.extend(BASE, { role, collaboratorType: z.literal('space') }))),
  'update-base-order': NONE,
  'move-base': NONE,
  'get-base-permission': json(PERMISSIONS),
  'list-base-collaborators': json(
    z.looseObject({ collaborators: z.array(COLLABORATOR), total: count, uniqTotal: count }),
  ),
  'list-base-collaborator-users': json(z.looseObject({ users: z.array(USER), total: count })),

  // Tables
  'create-table': json(
    z.extend(TABLE, {
      fields: z.array(FIELD),
      views: z.array(VIEW),
      records: z.array(RECORD),
      total: count,
    }),
  ),
  'list-tables': json(z.array(TABLE)),
  'analyze-import-file': json(
    z.object({
      worksheets: z.record(
        z.string(),
        z.object({ name: z.string(), columns: z.array(z.object({ type: z.string(), name: z.string() })) }),
      ),
    }),
  ),
  // as Teable's `tableVoSchema`: a description or icon not set is left out
  'import-table-from-file': json(
    z.array(
      z.extend(TABLE, {
        description: z.optional(z.string()),
        icon: z.optional(z.string()),
        fields: z.array(FIELD),
        views: z.array(VIEW),
        records: z.array(RECORD),
        total: count,
      }),
    ),
  ),
  'inplace-import-table': NONE,
  'get-table': json(TABLE),
  'update-table': json(TABLE),
  'delete-table': NONE,
  'delete-table-permanently': NONE,
  'get-default-view-id': json(z.looseObject({ id: id('view') })),
  'update-table-name': NONE,
  'update-table-icon': NONE,
  'update-table-description': NONE,
  'update-table-db-table-name': NONE,
  'update-table-order': NONE,
  'get-table-permission': json(
    z.looseObject({
      table: PERMISSIONS,
      view: PERMISSIONS,
      field: z.looseObject({
        'field|create': z.boolean(),
        'field|read': z.boolean(),
        'field|update': z.boolean(),
        'field|delete': z.boolean(),
        fields: doc(z.record(id('field'), PERMISSIONS), "Per field, as Teable 1.5's web app reads them"),
        create: z.boolean(),
      }),
      record: PERMISSIONS,
    }),
  ),

  // Fields
  'create-field': json(FIELD),
  'list-fields': json(z.array(FIELD)),
  'get-field': json(FIELD),
  'plan-field-create': json(FIELD_PLAN),
  'plan-field-convert': json(z.union([FIELD_PLAN, z.object({ skip: z.literal(true) })])),
  'plan-field': json(FIELD_PLAN),
  'update-field': json(FIELD),
  'convert-field': json(FIELD),
  'list-field-filter-link-records': json(z.array(FILTER_LINK_RECORDS)),
  'delete-field': NONE,
  'delete-fields': NONE,

  // Views
  'create-view': json(VIEW),
  'list-views': json(z.array(VIEW)),
  'get-view': json(VIEW),
  'update-view': json(VIEW),
  'delete-view': NONE,
  'update-record-order': NONE,
  'update-view-name': NONE,
  'update-view-description': NONE,
  'update-view-filter': NONE,
  'update-view-sort': NONE,
  'update-view-group': NONE,
  'update-view-options': NONE,
  'update-view-column-meta': NONE,
  'move-view': NONE,
  'apply-view-manual-sort': NONE,
  'update-view-locked': NONE,
  'list-view-filter-link-records': json(z.array(FILTER_LINK_RECORDS)),

  // Records
  'get-record': json(RECORD),
  'update-record': json(RECORD),
  'delete-record': json(RECORD),
  'create-records': json(RECORDS),
  'update-records': json(z.array(RECORD)),
  'delete-records': json(RECORDS),
  'duplicate-record': json(RECORDS),
  'get-record-status': json(z.looseObject({ isVisible: z.boolean(), isDeleted: z.boolean() })),
  'list-records': json(
    z.looseObject({
      records: z.array(RECORD),
      extra: z.looseObject({
        groupPoints: z.nullable(z.array(GROUP_POINT)),
        allGroupHeaderRefs: z.optional(z.array(z.looseObject({ id: z.string(), depth: count }))),
        searchHitIndex: z.nullable(z.array(z.looseObject({ recordId: id('record'), fieldId: id('field') }))),
      }),
    }),
  ),

  // Selections
  'get-selection-range-to-id': json(
    z.looseObject({
      recordIds: z.optional(z.array(id('record'))),
      fieldIds: z.optional(z.array(id('field'))),
    }),
  ),
  'copy-selection': json(z.looseObject({ content: z.string(), header: z.array(FIELD) })),
  'clear-selection': NONE,
  'paste-selection': json(
    z.looseObject({ ranges: z.tuple([z.tuple([count, count]), z.tuple([count, count])]) }),
  ),
  'temporary-paste-selection': json(z.array(z.looseObject({ fields: jsonObject }))),
  'delete-selection': json(z.looseObject({ ids: z.array(id('record')) })),

  // Aggregation
  'get-row-count': json(z.looseObject({ rowCount: count })),
  undo: json(UNDO_ANSWER),
  redo: json(UNDO_ANSWER),
  'get-comment-counts': json(
    doc(z.array(z.object({ recordId: id('record'), count })), 'Always empty: comments are not built'),
  ),
  'get-record-comment-count': json(
    z.object({ count: doc(z.literal(0), 'Always 0: comments are not built') }),
  ),
  'get-instance-settings': json(
    z.object({
      instanceId: z.string(),
      disallowSignUp: z.boolean(),
      disallowSpaceCreation: z.boolean(),
      disallowSpaceInvitation: z.boolean(),
    }),
  ),
  'get-aggregations': json(
    z.looseObject({
      aggregations: z.array(
        z.looseObject({
          fieldId: id('field'),
          total: z.nullable(STATISTIC),
          group: doc(z.optional(z.record(z.string(), STATISTIC)), 'By group header id, with `groupBy`'),
        }),
      ),
    }),
  ),
  'get-group-points': json(doc(z.nullable(z.array(GROUP_POINT)), 'null without `groupBy`')),
  'get-search-count': json(z.looseObject({ count })),
  'get-search-index': json(
    doc(
      z.nullable(
        z.array(
          z.looseObject({
            index: doc(z.int().check(z.minimum(1)), "The 1-based position of the hit's record in the list"),
            fieldId: id('field'),
            recordId: id('record'),
          }),
        ),
      ),
      'null when nothing matches',
    ),
  ),
  'get-calendar-daily-collection': json(
    z.looseObject({ countMap: z.record(z.string(), count), records: z.array(RECORD) }),
  ),
  'get-task-status-collection': json(z.looseObject({ fieldMap: jsonObject, cells: z.array(z.unknown()) })),
  'create-query-params': json(z.looseObject({ queryId: id('query') })),

  // Plugins
  'create-plugin': json(PLUGIN),
  'list-plugins': json(z.array(PLUGIN)),
  'get-plugin': json(PLUGIN),
  'delete-plugin': NONE,
  'publish-plugin': json(PLUGIN),
  'unpublish-plugin-as-admin': NONE,
  'update-plugin': json(PLUGIN),
  'list-plugin-center': json(z.array(CENTER_PLUGIN)),
  'submit-plugin': NONE,
  'unpublish-plugin': NONE,

  // Plugin context menus
  'install-context-menu-plugin': json(
    z.looseObject({ pluginInstallId: id('pluginInstall'), name: z.string(), order: count }),
  ),
  'list-context-menu-plugins': json(z.array(CONTEXT_MENU_ITEM)),
  'remove-context-menu-plugin': NONE,
  'move-context-menu-plugin': NONE,
  'get-context-menu-plugin': json(
    z.looseObject({
      name: z.string(),
      tableId: id('table'),
      ...plugin,
      positionId: doc(id('table'), "The table's id"),
      url: z.optional(z.string()),
      config: z.optional(jsonObject),
    }),
  ),
  'rename-context-menu-plugin': NONE,
  'update-context-menu-plugin-storage': json(
    z.looseObject({ tableId: id('table'), pluginInstallId: id('pluginInstall'), storage: jsonObject }),
  ),
  'get-context-menu-plugin-storage': json(
    z.looseObject({ name: z.string(), tableId: id('table'), ...plugin, storage: jsonObject }),
  ),

  // Project nodes
  'list-nodes': json(z.array(NODE)),
  'create-node': json(NODE),
  'move-node': json(NODE),
  'delete-node': NONE,
  'delete-node-permanently': json(
    z.looseObject({
      resourceId: z.string(),
      resourceType: z.enum(['table', 'dashboard', 'folder']),
      permanent: z.literal(true),
    }),
  ),

  // Dashboards
  'create-dashboard': json(DASHBOARD_SUMMARY),
  'list-dashboards': json(z.array(DASHBOARD_SUMMARY)),
  'get-dashboard': json(DASHBOARD),
  'rename-dashboard': json(DASHBOARD_SUMMARY),
  'delete-dashboard': NONE,
  'install-dashboard-plugin': json(z.looseObject({ id: id('dashboard'), ...plugin, name: z.string() })),
  'remove-dashboard-plugin': NONE,
  'rename-dashboard-plugin': json(
    z.looseObject({
      id: doc(id('plugin'), "The installed plugin's id (the install's own id is pluginInstallId)"),
      pluginInstallId: id('pluginInstall'),
      name: z.string(),
    }),
  ),
  'update-dashboard-layout': json(z.looseObject({ id: id('dashboard'), layout: z.array(LAYOUT_BOX) })),
  'get-dashboard-plugin': json(
    z.looseObject({ ...plugin, baseId: id('base'), name: z.string(), storage: jsonObject }),
  ),
  'update-dashboard-plugin-storage': json(
    z.looseObject({
      baseId: id('base'),
      dashboardId: id('dashboard'),
      pluginInstallId: id('pluginInstall'),
      storage: jsonObject,
    }),
  ),

  // Organizations
  'create-organization': json(ORGANIZATION_REF),
  'get-organization': json(z.extend(ORGANIZATION_REF, { domains: z.array(ORGANIZATION_DOMAIN) })),
  'add-organization-domain': json(z.looseObject({ domain: z.string(), status: z.literal('pending') })),
  'list-organization-domains': json(z.array(ORGANIZATION_DOMAIN)),
  'delete-organization-domain': NONE,
  'verify-organization-domain': json(z.looseObject({ domain: z.string(), status: z.literal('verified') })),
  'send-domain-verification-email': json(
    z.looseObject({ domain: z.string(), sentTo: z.string(), expiresTime: time }),
  ),

  // Trash
  'list-trash': json(TRASH_PAGE),
  'list-trash-items': json(TRASH_PAGE),
  'restore-trash-item': NONE,
  'reset-trash-items': NONE,
  'delete-trash-item': NONE,

  // Background jobs
  'get-job': json(
    z.looseObject({
      kind: z.enum(JOB_KINDS),
      resourceId: z.string(),
      state: z.enum(['queued', 'running', 'done', 'failed']),
      runs: doc(count, 'Worker runs so far'),
      createdTime: time,
      lastRunTime: doc(z.optional(time), 'When a worker last ran it'),
      finishedTime: z.optional(time),
    }),
  ),

  // Notifications
  'list-notifications': json(
    z.looseObject({ notifications: z.array(NOTIFICATION), nextCursor: z.nullable(z.string()) }),
  ),
  'count-unread-notifications': json(z.looseObject({ unreadCount: count })),
  'mark-all-notifications-read': NONE,
  'update-notification-status': NONE,

  // Pins
  'list-pins': json(z.array(PIN_LISTED)),
  'add-pin': json(PIN),
  'delete-pin': NONE,
  'update-pin-order': NONE,
};
