import { type Item, putItem } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { isMap } from './attributes.ts';
import { type Lookup, lookupOf } from './batch-read.ts';

/**
 * Saved listing parameters (`QUERY#<qry>` `QUERY`, type `savedQuery`): one item per saved query in
 * its own partition, kept 24 hours (DynamoDB TTL on `expiresAt`; readers check the time too, since
 * TTL deletion is lazy). `createdBy` is kept for auditing.
 */

/** The parameters as saved, in query-string shapes (checked when saved and again when used). */
export type SavedParams = Record<string, unknown>;

/** A saved query as stored. */
export interface SavedQuery {
  id: string;
  params: SavedParams;
  createdBy: string;
  createdTime: string;
  /** When it expires, in epoch seconds (its TTL). */
  expiresAt: number;
}

/** Writes a saved query (its id is new and random: no condition). */
export const putSavedQuery = async (query: SavedQuery): Promise<void> =>
  putItem({
    ...keys.savedQuery(query.id),
    type: 'savedQuery',
    params: query.params,
    createdBy: query.createdBy,
    createdTime: query.createdTime,
    expiresAt: query.expiresAt,
  });

const savedQueryOf =
  (id: string) =>
  (item: Item): SavedQuery => ({
    id,
    params: isMap(item.params) ? item.params : {},
    createdBy: typeof item.createdBy === 'string' ? item.createdBy : '',
    createdTime: typeof item.createdTime === 'string' ? item.createdTime : '',
    expiresAt: Number(item.expiresAt),
  });

/** The lookup of a saved query, to read in a batch with the token. Pure. */
export const savedQueryLookup = (queryId: string): Lookup<SavedQuery> =>
  lookupOf(keys.savedQuery(queryId), savedQueryOf(queryId));
