import { getItems, type Item, queryAll, type TransactOp } from '#shared/db/client.ts';
import { NOT_EXISTS, or } from '#shared/db/conditions.ts';
import { type Key, keys } from '#shared/db/keys.ts';
import { text } from './attributes.ts';

/**
 * A claim of one value of a `unique` field by one record (`keys.uniqueValue`: partition
 * `UNIQ#<tbl>`, sort key `<field id>#<claimed text>`). A write takes or gives up a claim in the
 * same transaction as the record, so two records never hold the same value.
 */
export interface UniqueClaim {
  recordId: string;
}

/** The claim's key. */
export const claimKey = (tableId: string, fieldId: string, claimedText: string): Key =>
  keys.uniqueValue(tableId, fieldId, claimedText);

/** The record holding a claim item, or undefined when there is none. */
export const claimHolder = (item: Item | undefined): string | undefined =>
  item ? text(item.recordId) || undefined : undefined;

const claimItem = (key: Key, recordId: string): Item => ({ ...key, type: 'uniqueValue', recordId });

/** Only while the claim is free or already this record's. */
const FREE_OR_MINE = { condition: or(NOT_EXISTS, 'recordId = :r') };
const mine = (recordId: string) => ({ ...FREE_OR_MINE, values: { ':r': recordId } });

/** Takes a claim for a record (fails if another record holds it), and its undo. */
export const takeClaim = (key: Key, recordId: string): { op: TransactOp; undo: TransactOp } => ({
  op: { put: claimItem(key, recordId), ...mine(recordId) },
  undo: { delete: key },
});

/** Gives up a record's claim (fails if another record holds it now), and its undo. */
export const releaseClaim = (key: Key, recordId: string): { op: TransactOp; undo: TransactOp } => ({
  op: { delete: key, ...mine(recordId) },
  undo: { put: claimItem(key, recordId) },
});

/** The records holding claims of one field's values (one batch read), by claimed text; free values are left out. */
export const claimHolders = async (
  tableId: string,
  fieldId: string,
  claimedTexts: readonly string[],
): Promise<Map<string, string>> => {
  const found = await getItems(claimedTexts.map((t) => claimKey(tableId, fieldId, t)));
  const out = new Map<string, string>();
  for (const t of claimedTexts) {
    const holder = claimHolder(found.get(claimKey(tableId, fieldId, t)));
    if (holder) out.set(t, holder);
  }
  return out;
};

/** Every claim of one field's values: its key and the record holding it (one query). */
export const fieldClaims = async (
  tableId: string,
  fieldId: string,
): Promise<{ key: Key; recordId: string }[]> =>
  (
    await queryAll({ ...keys.uniqueValuesOfField(tableId, fieldId), projection: ['pk', 'sk', 'recordId'] })
  ).map((item) => ({ key: { pk: text(item.pk), sk: text(item.sk) }, recordId: text(item.recordId) }));

/**
 * Sets a claim to a record whoever held it (a field's claims rebuilt with its schema change, which
 * the table's schema version guards), and its undo: the claim as it was, or none.
 */
export const setClaim = (
  key: Key,
  recordId: string,
  before: string | undefined,
): { op: TransactOp; undo: TransactOp } => ({
  op: { put: claimItem(key, recordId) },
  undo: before ? { put: claimItem(key, before) } : { delete: key },
});

/** Removes a claim whoever holds it (a field no longer unique), and its undo. */
export const dropClaim = (key: Key, recordId: string): { op: TransactOp; undo: TransactOp } => ({
  op: { delete: key },
  undo: { put: claimItem(key, recordId) },
});

/** The record holding each claim (one batch read), in the order asked; undefined where the value is free. */
export const holdersOfClaims = async (claimKeys: readonly Key[]): Promise<(string | undefined)[]> => {
  const found = await getItems(claimKeys);
  return claimKeys.map((key) => claimHolder(found.get(key)));
};
