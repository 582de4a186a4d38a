import { randomBytes } from 'node:crypto';

// Ours, not nanoid/ulid: Teable's ids are a prefix and 16 base62 characters (ulid cannot make them;
// nanoid's customAlphabet could, with the same crypto source and rejection sampling as these 10 lines).
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ID_BODY_LENGTH = 16;

/** The id prefixes of the contract (README, "Identifiers"). */
export const ID_PREFIX = {
  space: 'spc',
  base: 'bse',
  table: 'tbl',
  field: 'fld',
  view: 'viw',
  record: 'rec',
  user: 'usr',
  accessToken: 'acc',
  dashboard: 'dsh',
  plugin: 'plg',
  pluginInstall: 'pli',
  node: 'nod',
  trash: 'trs',
  notification: 'not',
  organization: 'org',
  choice: 'cho',
  query: 'qry_',
  webhook: 'whk',
  delivery: 'dlv',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

/** Random base62 text of the given length, unbiased (rejection sampling). */
export const randomBase62 = (length: number): string => {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
};

/** A new id of the given kind: its prefix plus 16 random base62 characters. */
export const newId = (kind: IdKind): string => `${ID_PREFIX[kind]}${randomBase62(ID_BODY_LENGTH)}`;

/**
 * A new id whose body starts with the creation time (8 base62 digits of epoch ms), so ids of one
 * kind sort by creation. Used where a list is read newest first by id (notifications).
 */
export const newTimeOrderedId = (kind: IdKind, now = Date.now()): string => {
  let n = now;
  let time = '';
  for (let i = 0; i < 8; i++) {
    time = ALPHABET[n % 62] + time;
    n = Math.floor(n / 62);
  }
  return `${ID_PREFIX[kind]}${time}${randomBase62(ID_BODY_LENGTH - 8)}`;
};

/** True when `value` is a well-formed id of the given kind. */
export const isId = (kind: IdKind, value: unknown): value is string =>
  typeof value === 'string' &&
  value.length === ID_PREFIX[kind].length + ID_BODY_LENGTH &&
  value.startsWith(ID_PREFIX[kind]) &&
  /^[0-9A-Za-z]+$/.test(value.slice(ID_PREFIX[kind].length));

/**
 * Why a text is not an id of a kind, in words for an error body: the prefix it lacks, or (with the
 * right prefix) how many characters follow it or that one is not a letter or digit. Undefined for
 * an id. Pure.
 */
export const idProblem = (kind: IdKind, value: unknown): string | undefined => {
  if (isId(kind, value)) return undefined;
  const prefix = ID_PREFIX[kind];
  if (typeof value !== 'string' || !value.startsWith(prefix)) return `must be an id starting with ${prefix}`;
  const body = value.slice(prefix.length);
  const shape = `must be ${prefix} followed by ${ID_BODY_LENGTH} letters or digits`;
  return body.length !== ID_BODY_LENGTH
    ? `${shape}; this one has ${body.length} after ${prefix}`
    : `${shape}; this one has another character after ${prefix}`;
};

/**
 * The project node of a table or dashboard: `nod` plus the resource id's body, so whoever holds
 * the resource id finds its node without a lookup (unique and never reused, as the resource id is).
 */
export const nodeIdOf = (resourceId: string): string => `${ID_PREFIX.node}${resourceId.slice(3)}`;
