/**
 * The docs and queries of the realtime socket's collections (`README.md`, contract web-app §2),
 * read with the caller's rights through the API's own reads: a `rec_` query is the record listing
 * (`listRecords`, the same answer as `GET /table/{t}/record` with those parameters), `fld_`, `viw_`
 * and `tbl_` the field, view and table listings.
 *
 * Versions: a record doc's is the record's `version` (one more per write of it); a field's,
 * view's and table's is its table's `schemaVersion` (one more per change of the table's schema,
 * name or icon: every schema write is guarded by it). Both are kept on items the writes put anyway.
 */
import { checkAccess, type Principal, tablePermission } from '#shared/auth/permission.ts';
import { locateNow } from '#shared/auth/resources.ts';
import type { Scope } from '#shared/auth/scopes.ts';
import { HttpError, NotFoundError, ValidationError } from '#shared/core/errors.ts';
import { listRecords } from '#shared/listing/list.ts';
import { type RawParams, readListParams } from '#shared/listing/params.ts';
import { tableIdsInTreeOrder } from '#shared/nodes/nodes.ts';
import { recordRights } from '#shared/records/context.ts';
import { renderRecords } from '#shared/records/read.ts';
import { readRecords } from '#shared/records/rows.ts';
import { loadSchema, type TableSchema } from '#shared/schema/schema.ts';
import { toViewOut } from '#shared/schema/views.ts';
import { fieldsInViewOrder } from '#shared/tables/fields.ts';
import { toTable } from '#shared/tables/tables.ts';

/** A collection's kind and what it belongs to. */
export type Collection =
  | { kind: 'rec' | 'fld' | 'viw'; name: string; tableId: string }
  | { kind: 'tbl'; name: string; baseId: string };

const COLLECTION = /^(rec|fld|viw)_(tbl[0-9A-Za-z]{1,40})$|^tbl_(bse[0-9A-Za-z]{1,40})$/;

/** The collection a name stands for, or undefined. Pure. */
export const parseCollection = (name: unknown): Collection | undefined => {
  if (typeof name !== 'string') return undefined;
  const m = COLLECTION.exec(name);
  if (!m) return undefined;
  if (m[3]) return { kind: 'tbl', name, baseId: m[3] };
  return { kind: m[1] as 'rec' | 'fld' | 'viw', name, tableId: m[2] as string };
};

/** A doc as the socket sends it: id, version and data. */
export interface DocSnapshot {
  id: string;
  v: number;
  data: Record<string, unknown>;
}

/** What a query answers: its docs in order, and what the list answers beside them. */
export interface QueryAnswer {
  docs: DocSnapshot[];
  extra?: unknown;
}

/** The error a socket request answers (ShareDB's `{code, message}`). */
export class SocketError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The API's refusal as the socket says it: Teable's codes where the web app acts on them. */
export const socketErrorOf = (error: unknown): SocketError => {
  if (error instanceof SocketError) return error;
  if (error instanceof HttpError)
    return new SocketError(error.status === 401 ? 'unauthorized' : error.code, error.message);
  throw error;
};

const ACTION: Record<Collection['kind'], Scope> = {
  rec: 'record|read',
  fld: 'field|read',
  viw: 'view|read',
  tbl: 'table|read',
};

/** The most rows one `rec_` query answers (the web app asks 300 at a time, kanban 200). */
export const MAX_QUERY_TAKE = 300;

/** A table the principal may read this collection of, with its schema. */
const readableTable = async (principal: Principal, collection: Collection & { tableId: string }) => {
  const located = await locateNow({ kind: 'table', id: collection.tableId }, principal.userId);
  checkAccess({ principal, resource: located, role: located.role, actions: [ACTION[collection.kind]] });
  return { located, schema: await loadSchema(collection.tableId, located.table) };
};

const viewOf = (schema: TableSchema, viewId: unknown) => {
  if (viewId === undefined || viewId === null || viewId === '') return undefined;
  const view = schema.views.find((v) => v.id === viewId);
  if (!view) throw new SocketError('view_not_found', `View ${String(viewId)} not found`);
  return view;
};

/** The record list's parameters from a `rec_` query object (values as the query string gives them). */
const listParamsOfQuery = (query: Readonly<Record<string, unknown>>) => {
  const raw: RawParams = {};
  for (const [key, value] of Object.entries(query)) {
    if (key === 'type' || value === undefined || value === null) continue;
    if (typeof value === 'number' || typeof value === 'boolean') raw[key] = String(value);
    else if (Array.isArray(value) && key !== 'orderBy' && key !== 'groupBy')
      raw[key] = value.map((v) => (typeof v === 'string' ? v : String(v)));
    else raw[key] = value;
  }
  raw.fieldKeyType = 'id';
  raw.cellFormat = 'json';
  const params = readListParams(raw);
  if (params.take > MAX_QUERY_TAKE)
    throw new ValidationError(`take: at most ${MAX_QUERY_TAKE} records a query`);
  return params;
};

type RenderedRecord = Awaited<ReturnType<typeof renderRecords>>[number] & { version?: number };

/** A record doc from a rendered record: the REST answer's record, keyed by field id. */
const recordDoc = (record: RenderedRecord): DocSnapshot => {
  const { permissions: _, undeletable: __, version, ...data } = record;
  return { id: record.id, v: version ?? 1, data };
};

const tableDoc = (
  principal: Principal,
  located: Awaited<ReturnType<typeof locateNow>>,
  schema: TableSchema,
  order: number,
): DocSnapshot => ({
  id: schema.table.id,
  v: schema.version,
  data: {
    ...toTable(schema.table, schema.views),
    order,
    permission: tablePermission(principal, located, located.role).table,
  },
});

/** The live tables of a base, in the tree's order, as `tbl_` docs. */
const baseTables = async (principal: Principal, baseId: string): Promise<DocSnapshot[]> => {
  const located = await locateNow({ kind: 'base', id: baseId }, principal.userId);
  checkAccess({ principal, resource: located, role: located.role, actions: ['table|read'] });
  const schemas = await Promise.all((await tableIdsInTreeOrder(baseId)).map((id) => loadSchema(id)));
  return schemas
    .filter((s) => !s.table.deletedTime)
    .map((schema, order) => tableDoc(principal, located, schema, order));
};

/** Answers a query of a collection with the principal's rights (an `HttpError` or `SocketError` when refused). */
export const readQuery = async (
  principal: Principal,
  collection: Collection,
  query: Readonly<Record<string, unknown>>,
): Promise<QueryAnswer> => {
  if (collection.kind === 'tbl') return { docs: await baseTables(principal, collection.baseId) };
  const { located, schema } = await readableTable(principal, collection);
  if (collection.kind === 'viw')
    return {
      docs: schema.views.map((v) => ({
        id: v.id,
        v: schema.version,
        data: { ...toViewOut(v, schema.fields) },
      })),
    };
  if (collection.kind === 'fld')
    return {
      docs: fieldsInViewOrder(schema, viewOf(schema, query.viewId)).map((f) => ({
        id: f.id,
        v: schema.version,
        data: { ...f },
      })),
    };
  viewOf(schema, query.viewId);
  const answer = await listRecords(
    { schema, userId: principal.userId, ...recordRights(principal, located), withVersions: true },
    listParamsOfQuery(query),
  );
  return {
    docs: answer.records.map((r) => recordDoc(r as RenderedRecord)),
    extra: { ...answer.extra, groupPoints: answer.extra.groupPoints ?? [] },
  };
};

/**
 * Some docs of a collection by id, with the principal's rights: each found doc's snapshot, and
 * undefined for one not there (deleted, or never was).
 */
export const readDocs = async (
  principal: Principal,
  collection: Collection,
  ids: readonly string[],
): Promise<Map<string, DocSnapshot | undefined>> => {
  const out = new Map<string, DocSnapshot | undefined>(ids.map((id) => [id, undefined]));
  if (!ids.length) return out;
  let docs: DocSnapshot[];
  if (collection.kind === 'rec') {
    const { located, schema } = await readableTable(principal, collection);
    const items = await readRecords(collection.tableId, ids);
    const rendered = await renderRecords(schema, items, {
      keyType: 'id',
      cellFormat: 'json',
      ...recordRights(principal, located),
      withVersion: true,
    });
    docs = rendered.map((r) => recordDoc(r as RenderedRecord));
  } else docs = (await readQuery(principal, collection, {})).docs;
  for (const doc of docs) if (out.has(doc.id)) out.set(doc.id, doc);
  return out;
};

/** A table that is gone answers no docs: its collection's reads then fail with this. */
export const isGone = (error: unknown): boolean => error instanceof NotFoundError;
