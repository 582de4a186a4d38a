import { combineLookups, getItems, type Item, type ItemLookup } from '#shared/db/client.ts';
import type { Key } from '#shared/db/keys.ts';
import { readEarlier } from '#shared/db/request-scope.ts';

/**
 * One strongly consistent batch read across entities (the HTTP chain's read with the token, a
 * page's names): each entity module builds the lookups of what a caller needs (`spaceLookup`,
 * `savedQueryLookup`) apart from sending, as data; the caller gathers them and sends one batch
 * (`readBatch`), then reads each value back by its lookup (`valueFor`). Stores no item of its own.
 */

/** Items read by key, as the client answers a batch (a `Loaded` is one; `asLoaded` makes one). */
export type { ItemLookup };

/** One item to read in a batch, and the domain value it holds. Built by its entity module. */
export interface Lookup<T> {
  readonly key: Key;
  readonly read: (item: Item) => T;
}

/**
 * The key of an item, built by its entity module (`recordKey`, `credentialKeys`) and handed on
 * unopened to a batch read.
 */
export type ItemKey = Key;

/**
 * Items read in batches: a value by its lookup, whether a lookup was read at all (found or
 * not). Also an `ItemLookup`, for the entity readers that take one (`recordIn`).
 */
export interface Loaded extends ItemLookup {
  /** The value of a lookup's item, or undefined when none is stored. */
  valueFor<T>(lookup: Lookup<T>): T | undefined;
  /** True when the lookup's item was read (found or not). */
  wasRead(lookup: Lookup<unknown> | ItemKey): boolean;
}

/** A lookup of an item by its key, read by `read`. Pure. */
export const lookupOf = <T>(key: Key, read: (item: Item) => T): Lookup<T> => ({ key, read });

const keyOf = (wanted: Lookup<unknown> | ItemKey): Key => ('key' in wanted ? wanted.key : wanted);

const loadedOf = (items: ItemLookup): Loaded => ({
  get: (key) => items.get(key),
  requested: (key) => items.requested(key),
  get size() {
    return items.size;
  },
  valueFor: <T>(lookup: Lookup<T>): T | undefined => {
    const item = items.get(lookup.key);
    return item === undefined ? undefined : lookup.read(item);
  },
  wasRead: (wanted) => items.requested(keyOf(wanted)),
});

/**
 * The value of a lookup's item when this request has read it already (with authentication); no
 * read, undefined when it has not.
 */
export const valueReadEarlier = <T>(lookup: Lookup<T>): T | undefined => {
  const item = readEarlier(lookup.key);
  return item === undefined ? undefined : lookup.read(item);
};

/** Items already read (another batch, a test's fixture) as a `Loaded`. */
export const asLoaded = (items: ItemLookup): Loaded =>
  typeof (items as Partial<Loaded>).valueFor === 'function' ? (items as Loaded) : loadedOf(items);

/**
 * Reads the items of all lookups (and keys handed on by entity modules) in one strongly
 * consistent batch (100 keys a call, in parallel).
 */
export const readBatch = async (wanted: readonly (Lookup<unknown> | ItemKey)[]): Promise<Loaded> =>
  loadedOf(await getItems(wanted.map(keyOf)));

/** Reads further lookups and answers them with what was read before, as one `Loaded`. */
export const readMore = async (
  loaded: ItemLookup,
  wanted: readonly (Lookup<unknown> | ItemKey)[],
): Promise<Loaded> => loadedOf(combineLookups(loaded, await getItems(wanted.map(keyOf))));
