/**
 * The general path's reads: every record of a table with only the attributes a query needs,
 * read in parallel over contiguous slices of the records partition, and the engine's rows built
 * from them.
 */
import {
  getRecordParts,
  getRecords,
  RECORD_ENVELOPE,
  type RecordItem,
  type RecordPart,
  readRecordRanges,
  recordOf,
  recordPartsInRanges,
} from '#shared/entities/records.ts';
import type { Field } from '#shared/fields/field-types.ts';
import { ID_PREFIX } from '#shared/ids.ts';
import type { Row } from '#shared/query/query-types.ts';
import { cellOf } from './model.ts';
import { effectiveKey } from './placement.ts';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Default number of concurrent slices of a table's records (see `slicesFor`). */
export const ROW_SLICES = 16;

/** The envelope attribute holding a system field's value (`model.ts` `cellOf`). */
const SYSTEM_ATTRIBUTE: Partial<Record<Field['type'], string>> = {
  autoNumber: 'autoNumber',
  createdTime: 'createdTime',
  lastModifiedTime: 'lastModifiedTime',
  createdBy: 'cb',
  lastModifiedBy: 'mb',
};

/** The item attributes to read for the engine: id, order, and the named fields' cells. Pure. */
export const rowAttributes = (fields: readonly Field[], fieldIds: Iterable<string>): string[] => {
  const wanted = new Set(fieldIds);
  const attrs = new Set(['id', 'autoNumber', 'ord']);
  for (const field of fields) {
    if (!wanted.has(field.id)) continue;
    attrs.add(SYSTEM_ATTRIBUTE[field.type] ?? field.id);
  }
  return [...attrs];
};

/**
 * Sort-key ranges covering the whole records partition in `count` contiguous slices: record ids
 * are `rec` + 16 base62 characters, split on the first two characters after the prefix (3,844
 * positions; `~` sorts after every base62 character). The first and last slices are open, so
 * nothing falls out. Pure.
 */
export const recordSlices = (count = ROW_SLICES): { from?: string; to?: string }[] => {
  const positions = ALPHABET.length ** 2;
  const n = Math.max(1, Math.min(Math.floor(count), MAX_RANGES));
  const prefix = ID_PREFIX.record;
  const text = (p: number) =>
    `${prefix}${ALPHABET[Math.floor(p / ALPHABET.length)]}${ALPHABET[p % ALPHABET.length]}`;
  const bounds = Array.from({ length: n }, (_, i) => Math.round((i * positions) / n));
  return bounds.map((start, i) => {
    const end = (bounds[i + 1] ?? positions) - 1;
    return {
      ...(i === 0 ? {} : { from: text(start) }),
      ...(i === n - 1 ? {} : { to: `${text(end)}~` }),
    };
  });
};

/**
 * How many slices to read a small table (or a build's segment) in: ~500 records a slice, 4..16,
 * each slice about one page. Larger tables are read in `rangesFor` ranges, `READ_IN_FLIGHT` at a
 * time, backing off when the database throttles (`entities/records.ts` `readRecordRanges`).
 */
export const slicesFor = (records: number): number =>
  Math.max(4, Math.min(ROW_SLICES, Math.ceil(records / 500)));

/** The most ranges a table's read is split into (`recordSlices` has 3,844 positions to split on). */
export const MAX_RANGES = 1_024;
/** Records per range of a large table's read: about two 1 MB pages of records of 20 fields. */
const RECORDS_PER_RANGE = 2_000;
/**
 * How many ranges are read at once. The read of a table takes about (its size / 1 MB) / this
 * many sequential round trips: 1,000,000 records of ~1 KB in about 32. Measured on DynamoDB
 * Local by `npm run bench` (listing at 100,000: "parallel reads").
 */
export const READ_IN_FLIGHT = 32;

/**
 * How many ranges to read a table of about `records` records in: as `slicesFor` up to 8,000
 * records (each slice one page), then ~2,000 records a range, so that `READ_IN_FLIGHT` ranges at
 * a time keep every request in flight busy and none is much longer than the others. Pure.
 */
export const rangesFor = (records: number): number =>
  Math.max(slicesFor(records), Math.min(MAX_RANGES, Math.ceil(records / RECORDS_PER_RANGE)));

/**
 * Every record of a table with only `attributes`, read over `ranges` contiguous ranges
 * (`rangesFor` the table's size), `READ_IN_FLIGHT` at a time, in id order.
 */
export const readAllRecords = async (
  tableId: string,
  attributes: readonly string[],
  ranges = ROW_SLICES,
): Promise<RecordPart[]> => {
  const parts: RecordPart[][] = [];
  await readRecordRanges({
    tableId,
    attributes,
    ranges: recordSlices(ranges),
    inFlight: READ_IN_FLIGHT,
    onRange: (index, records) => {
      parts[index] = records;
    },
  });
  return parts.flat();
};

/** The records of a table in some of `recordSlices`' ranges, with only `attributes`, the ranges read at once. */
export const readRecordsIn = async (
  tableId: string,
  attributes: readonly string[],
  ranges: readonly { from?: string; to?: string }[],
): Promise<RecordPart[]> => recordPartsInRanges(tableId, attributes, ranges);

/**
 * Some records of a table by id, in the given order (missing ones left out): whole, or with their
 * envelope and only the cells of `cellIds`.
 */
export const readRecords = async (
  tableId: string,
  ids: readonly string[],
  cellIds?: readonly string[],
): Promise<RecordItem[]> => {
  if (!ids.length) return [];
  const found = cellIds
    ? await getRecordParts(tableId, ids, [...new Set([...RECORD_ENVELOPE, ...cellIds])])
    : await getRecords(tableId, ids);
  return ids.flatMap((id) => {
    const item = found.get(id);
    return item ? [recordOf(item)] : [];
  });
};

/** Some records of a table by id, in the given order (missing ones left out), with only `attributes`. */
export const readRecordParts = async (
  tableId: string,
  ids: readonly string[],
  attributes: readonly string[],
): Promise<RecordPart[]> => {
  const found = ids.length ? await getRecordParts(tableId, ids, attributes) : new Map<string, RecordPart>();
  return ids.flatMap((id) => {
    const item = found.get(id);
    return item ? [item] : [];
  });
};

/** The engine's row of a record item: its cells for the named fields and its key in the view. Pure. */
export const toRow = (record: RecordPart, fields: readonly Field[], viewId: string): Row => {
  const cells: Row['cells'] = {};
  for (const field of fields) {
    const v = cellOf(record, field);
    if (v !== undefined) cells[field.id] = v;
  }
  return {
    id: record.id,
    autoNumber: Number(record.autoNumber),
    orderKey: effectiveKey(record, viewId),
    cells,
  };
};
