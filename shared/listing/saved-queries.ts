/**
 * Saved listing parameters (`POST /query-params`, used by `GET …/record?queryId=`). One item per
 * saved query in its own partition, kept 24 hours (DynamoDB TTL on `expiresAt`; the read checks
 * the time too, since TTL deletion is lazy).
 *
 * Who may use one: anyone who can read the table it is used on. The id is random (16 base62
 * characters) and the saved parameters only shape a listing the caller is already allowed to
 * see, so they grant nothing; `createdBy` is stored for auditing. A saved query is not bound to a
 * table: field references are checked when it is used, against that table.
 */
import type { Principal } from '#shared/auth/permission.ts';
import { NotFoundError, ValidationError } from '#shared/core/errors.ts';
import type { ItemKey, Loaded } from '#shared/entities/batch-read.ts';
import { putSavedQuery, type SavedQuery, savedQueryLookup } from '#shared/entities/saved-queries.ts';
import { isId, newId } from '#shared/ids.ts';
import { mergeParams, type RawParams, readListParams } from './params.ts';

/** How long a saved query lives. */
export const SAVED_QUERY_TTL_SECONDS = 24 * 60 * 60;
/** Largest saved parameters (JSON text). */
export const MAX_SAVED_PARAMS_BYTES = 64 * 1024;

/** The parameters a saved query may hold (the listing's, except paging and `queryId`). */
const SAVABLE = [
  'viewId',
  'ignoreViewQuery',
  'projection',
  'cellFormat',
  'fieldKeyType',
  'filter',
  'filterByTql',
  'orderBy',
  'groupBy',
  'collapsedGroupIds',
  'search',
  'selectedRecordIds',
  'filterLinkCellCandidate',
  'filterLinkCellSelected',
  'take',
  'skip',
] as const;

const asQueryValue = (key: string, value: unknown): unknown => {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && ['filter', 'orderBy', 'groupBy'].includes(key)) return JSON.stringify(value);
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  return JSON.stringify(value);
};

/**
 * Normalises parameters to the shapes a query string gives (text, or lists of text; JSON
 * parameters as JSON text) and checks them as the listing would. Unknown keys are dropped. Pure.
 */
export const normaliseSavedParams = (params: Record<string, unknown>): RawParams => {
  const out: RawParams = {};
  for (const key of SAVABLE) {
    const value = asQueryValue(key, params[key]);
    if (value !== undefined) out[key] = value;
  }
  if (Buffer.byteLength(JSON.stringify(out)) > MAX_SAVED_PARAMS_BYTES)
    throw new ValidationError('params: larger than 64 KB');
  readListParams(out);
  return out;
};

/** Saves listing parameters for 24 hours; answers the new `queryId`. */
export const saveQueryParams = async (
  principal: Principal,
  params: Record<string, unknown>,
  now = new Date(),
): Promise<{ queryId: string }> => {
  const saved = normaliseSavedParams(params);
  const queryId = newId('query');
  await putSavedQuery({
    id: queryId,
    params: saved,
    createdBy: principal.userId,
    createdTime: now.toISOString(),
    expiresAt: Math.floor(now.getTime() / 1000) + SAVED_QUERY_TTL_SECONDS,
  });
  return { queryId };
};

/** The parameters of a saved query; missing or expired is a 404. Pure. */
export const savedParamsOf = (
  query: SavedQuery | undefined,
  queryId: string,
  now = new Date(),
): RawParams => {
  if (!query || query.expiresAt * 1000 <= now.getTime())
    throw new NotFoundError(`Query ${queryId} not found or expired`);
  return query.params;
};

/** The saved query a list-style request names (`queryId`), as a key to read with the token; none when absent or malformed. */
export const savedQueryKeys = (query: Record<string, unknown> | undefined): ItemKey[] => {
  const v = query?.queryId;
  return typeof v === 'string' && isId('query', v) ? [savedQueryLookup(v).key] : [];
};

/**
 * The listing parameters of a list-style request: its query merged over the saved query it
 * names (read beforehand with `savedQueryKeys`), then checked. A malformed `queryId` is a 400.
 */
export const listParamsOf = (query: Record<string, string | string[]> | undefined, loaded: Loaded) => {
  const v = query?.queryId;
  if (v !== undefined && (typeof v !== 'string' || !isId('query', v)))
    throw new ValidationError('queryId: must be a saved query id (qry_…)');
  const saved = typeof v === 'string' ? savedParamsOf(loaded.valueFor(savedQueryLookup(v)), v) : undefined;
  return readListParams(mergeParams(saved, query ?? {}));
};
