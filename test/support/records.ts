import { call } from './invoke.ts';

/** The table a record route is called on, by its owner unless a call says otherwise. */
interface OwnedTable {
  tableId: string;
  owner: { auth: string };
}
type Headers = Record<string, string>;

/** `GET /table/{tableId}/record/{recordId}` with an optional query string. */
export const getRecord = (t: OwnedTable, recordId: string, query = '') =>
  call('get-record', { token: t.owner.auth, params: { tableId: t.tableId, recordId }, query });

/** `PATCH /table/{tableId}/record/{recordId}` with the body as given. */
export const updateRecord = (t: OwnedTable, recordId: string, body: unknown, headers?: Headers) =>
  call('update-record', { token: t.owner.auth, params: { tableId: t.tableId, recordId }, body, headers });

/** `POST /table/{tableId}/record` with the body as given. */
export const createRecords = (t: OwnedTable, body: unknown, headers?: Headers, token = t.owner.auth) =>
  call('create-records', { token, params: { tableId: t.tableId }, body, headers });

/** `PATCH /table/{tableId}/record` with the body as given. */
export const updateRecords = (t: OwnedTable, body: unknown, headers?: Headers) =>
  call('update-records', { token: t.owner.auth, params: { tableId: t.tableId }, body, headers });

/** `POST /table/{tableId}/record/{recordId}/duplicate` with an optional body. */
export const duplicateRecord = (t: OwnedTable, recordId: string, body?: unknown, headers?: Headers) =>
  call('duplicate-record', {
    token: t.owner.auth,
    params: { tableId: t.tableId, recordId },
    body,
    headers,
  });

/** `DELETE /table/{tableId}/record/{recordId}`. */
export const deleteRecord = (t: OwnedTable, recordId: string, headers?: Headers) =>
  call('delete-record', { token: t.owner.auth, params: { tableId: t.tableId, recordId }, headers });

/** `DELETE /table/{tableId}/record` with the ids in the query string. */
export const deleteRecords = (t: OwnedTable, query: string) =>
  call('delete-records', { token: t.owner.auth, params: { tableId: t.tableId }, query });
