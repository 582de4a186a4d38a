import { combineLookups, getItems, type Item, type ItemLookup } from '#shared/db/client.ts';
import type { Key } from '#shared/db/keys.ts';
import { noteRead, readEarlier } from '#shared/db/request-scope.ts';

/**
 * One strongly consistent batch read across entities (the HTTP chain's read with the token, a
 * page's names): each entity module builds the lookups of what a caller needs (`spaceLookup`,
 * `savedQueryLookup`) apart from sending, as data; the caller gathers them and sends one batch
 * (`readBatch`), then reads each value back by its lookup (`valueFor`). Stores no item of its own.
 */

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
 * Items read in batches, as their domain values: a value by its lookup, whether a lookup was
 * read at all (found or not). The stored items stay behind it (only this module reaches them).
 */
export interface Loaded {
  /** The value of a lookup's item, or undefined when none is stored. */
  valueFor<T>(lookup: Lookup<T>): T | undefined;
  /** True when the lookup's item was read (found or not). */
  wasRead(lookup: Lookup<unknown> | ItemKey): boolean;
}

/** A lookup of an item by its key, read by `read`. Pure. */
export const lookupOf = <T>(key: Key, read: (item: Item) => T): Lookup<T> => ({ key, read });

const keyOf = (wanted: Lookup<unknown> | ItemKey): Key => ('key' in wanted ? wanted.key : wanted);

/** The items behind each `Loaded` this module made. */
const itemsBehind = new WeakMap<Loaded, ItemLookup>();

const loadedOf = (items: ItemLookup): Loaded => {
  const loaded: Loaded = {
    valueFor: <T>(lookup: Lookup<T>): T | undefined => {
      const item = items.get(lookup.key);
      return item === undefined ? undefined : lookup.read(item);
    },
    wasRead: (wanted) => items.requested(keyOf(wanted)),
  };
  itemsBehind.set(loaded, items);
  return loaded;
};

const itemsOf = (loaded: Loaded): ItemLookup => {
  const items = itemsBehind.get(loaded);
  if (!items) throw new Error('a Loaded is made by readBatch, readMore or asLoaded');
  return items;
};

/**
 * The value of a lookup's item when this request has read it already (with authentication); no
 * read, undefined when it has not.
 */
export const valueReadEarlier = <T>(lookup: Lookup<T>): T | undefined => {
  const item = readEarlier(lookup.key);
  return item === undefined ? undefined : lookup.read(item);
};

/** Items the client read (a batch of `getItems`, a test's fixture) as a `Loaded`. */
export const asLoaded = (items: ItemLookup): Loaded => loadedOf(items);

/**
 * Keeps what a batch read of `wanted` found for the rest of the request (`valueReadEarlier`): a
 * later reader of the same items (a page's link titles) reads none of them again.
 */
export const keepForRequest = (loaded: Loaded, wanted: readonly (Lookup<unknown> | ItemKey)[]): void => {
  const items = itemsOf(loaded);
  noteRead(wanted.map((w) => [keyOf(w), items.get(keyOf(w))] as const));
};

/**
 * Reads the items of all lookups (and keys handed on by entity modules) in one strongly
 * consistent batch (100 keys a call, in parallel).
 */
export const readBatch = async (wanted: readonly (Lookup<unknown> | ItemKey)[]): Promise<Loaded> =>
  loadedOf(await getItems(wanted.map(keyOf)));

/** Reads further lookups and answers them with what was read before, as one `Loaded`. */
export const readMore = async (
  loaded: Loaded,
  wanted: readonly (Lookup<unknown> | ItemKey)[],
): Promise<Loaded> => loadedOf(combineLookups(itemsOf(loaded), await getItems(wanted.map(keyOf))));
