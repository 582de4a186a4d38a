import { getItems, type Item, writeItems } from '#shared/db/client.ts';
import { type Key, keys } from '#shared/db/keys.ts';
import type { GroupPoint, HeaderRef } from '#shared/query/query-types.ts';
import { count, text } from './attributes.ts';

/**
 * A listing's computed order, kept so the later pages of the same query on an unchanged table
 * need not read the table again (`QORDER#<tbl>`, see `listing/kept-orders.ts`). A header item
 * (`<hash>#H`) holds what the query answers beside the ids (total, group points); chunk items
 * (`<hash>#<n>`) hold `ORDER_CHUNK` ids each, in answer order, as one space-separated text. Every
 * item carries the signature (the data versions) it was computed at, so a reader uses only
 * items that agree with the versions it read; items expire after an hour (DynamoDB TTL, and the
 * reader checks).
 */
export const ORDER_CHUNK = 2_500;
/** How long a kept order may be used. */
export const ORDER_TTL_SECONDS = 3_600;
/** A header larger than this (very many groups) is not kept: the query is computed each time. */
export const MAX_HEADER_BYTES = 300_000;

export interface OrderHeader {
  signature: string;
  total: number;
  groupPoints: GroupPoint[] | null;
  allGroupHeaderRefs?: HeaderRef[];
}

export interface KeptOrder {
  header: OrderHeader;
  /** The ids from position `from` on, as far as the kept chunks reach without a gap. */
  ids: string[];
  from: number;
}

const HEADER = 'H';
const chunkPart = (n: number) => String(n).padStart(4, '0');

const isFresh = (item: Item | undefined, signature: string, nowSeconds: number): item is Item =>
  item !== undefined && item.signature === signature && count(item.expiresAt) > nowSeconds;

/** The chunks that hold positions [from, to): none for an empty range (a count reads the header alone). */
export const chunksCovering = (from: number, to: number): number[] => {
  const first = Math.floor(from / ORDER_CHUNK);
  const last = Math.ceil(to / ORDER_CHUNK) - 1;
  return Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => first + i);
};

/** The keys of a kept order's header and of the chunks holding [from, to). */
export const keptOrderKeys = (tableId: string, hash: string, from: number, to: number): Key[] => [
  keys.queryOrder(tableId, hash, HEADER),
  ...chunksCovering(from, to).map((n) => keys.queryOrder(tableId, hash, chunkPart(n))),
];

/**
 * Reads a kept order's header and the chunks for [from, to) in one call; `check` later tells
 * whether they hold for a signature (the versions are read in parallel with this).
 */
export const readKeptOrder = async (tableId: string, hash: string, from: number, to: number) => {
  const wanted = keptOrderKeys(tableId, hash, from, to);
  const found = await getItems(wanted);
  return (signature: string, now = Date.now()): KeptOrder | undefined => {
    const seconds = Math.floor(now / 1000);
    const [headerKey, ...chunkKeys] = wanted as [Key, ...Key[]];
    const header = found.get(headerKey);
    if (!isFresh(header, signature, seconds)) return undefined;
    const total = count(header.total);
    const start = Math.floor(from / ORDER_CHUNK) * ORDER_CHUNK;
    const ids: string[] = [];
    for (const key of chunkKeys) {
      const chunk = found.get(key);
      if (!isFresh(chunk, signature, seconds)) break;
      const part = text(chunk.ids);
      if (part) ids.push(...part.split(' '));
    }
    // Every position the page asks for must be there (or be past the end).
    if (start + ids.length < Math.min(to, total)) return undefined;
    return {
      header: {
        signature,
        total,
        groupPoints: (header.groupPoints as GroupPoint[] | null | undefined) ?? null,
        ...(Array.isArray(header.allGroupHeaderRefs)
          ? { allGroupHeaderRefs: header.allGroupHeaderRefs as HeaderRef[] }
          : {}),
      },
      ids,
      from: start,
    };
  };
};

/**
 * Keeps a computed order: its header and the chunks of `ids` (which start at position `from`,
 * a chunk boundary). A header too large to keep keeps nothing (answers false). Unconditional:
 * items of an older signature are simply replaced, and a reader checks each item's signature.
 */
export const writeKeptOrder = async (
  tableId: string,
  hash: string,
  header: OrderHeader,
  from: number,
  ids: readonly string[],
  now = Date.now(),
): Promise<boolean> => {
  // Chunks are whole but for the table's last, so the chunks read in a row never leave a gap.
  if (from % ORDER_CHUNK !== 0 || (from + ids.length < header.total && ids.length % ORDER_CHUNK !== 0))
    throw new Error(`a kept order covers whole chunks, not ${ids.length} ids from ${from}`);
  const expiresAt = Math.floor(now / 1000) + ORDER_TTL_SECONDS;
  const head: Item = {
    ...keys.queryOrder(tableId, hash, HEADER),
    type: 'queryOrder',
    signature: header.signature,
    total: header.total,
    groupPoints: header.groupPoints,
    ...(header.allGroupHeaderRefs ? { allGroupHeaderRefs: header.allGroupHeaderRefs } : {}),
    expiresAt,
  };
  if (Buffer.byteLength(JSON.stringify(head)) > MAX_HEADER_BYTES) return false;
  const chunks: Item[] = [];
  for (let i = 0; i < ids.length; i += ORDER_CHUNK)
    chunks.push({
      ...keys.queryOrder(tableId, hash, chunkPart((from + i) / ORDER_CHUNK)),
      type: 'queryOrderChunk',
      signature: header.signature,
      ids: ids.slice(i, i + ORDER_CHUNK).join(' '),
      expiresAt,
    });
  await writeItems([head, ...chunks].map((put) => ({ put })));
  return true;
};
