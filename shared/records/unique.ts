import { ValidationError } from '#shared/core/errors.ts';
import { getItems } from '#shared/db/client.ts';
import type { Step } from '#shared/db/commit.ts';
import {
  claimHolder,
  claimKey,
  dropClaim,
  fieldClaims,
  releaseClaim,
  setClaim,
  takeClaim,
} from '#shared/entities/unique-claims.ts';
import type { Field, StoredCell } from '#shared/fields/field-types.ts';
import { isEmptyCell } from '#shared/fields/kind-helpers.ts';

/** The most UTF-8 bytes of a value a claim's key holds: DynamoDB's sort keys stop at 1024. */
const MAX_CLAIM_BYTES = 1000;

/**
 * The text a unique value is claimed under (case-insensitive for text, as people expect): its
 * first 800 characters, cut further to 1000 UTF-8 bytes at a character boundary so the claim's
 * sort key (`<field id>#<text>`) stays a valid key however wide the characters. Pure.
 */
export const uniqueText = (value: StoredCell): string => {
  const text = (typeof value === 'string' ? value.trim().toLowerCase() : JSON.stringify(value)).slice(0, 800);
  if (Buffer.byteLength(text) <= MAX_CLAIM_BYTES) return text;
  let out = '';
  let bytes = 0;
  for (const char of text) {
    bytes += Buffer.byteLength(char);
    if (bytes > MAX_CLAIM_BYTES) break;
    out += char;
  }
  return out;
};

/** A change of a unique cell: the record, the value it gives up and the value it takes. */
export interface UniqueChange {
  recordId: string;
  field: Field;
  from: StoredCell | undefined;
  to: StoredCell | undefined;
}

/**
 * Checks unique fields for a batch: values repeated inside the batch or already held by another
 * record are a 400 naming the field. Answers the steps that move the claims (a claim taken at the
 * same time by another write fails the transaction: a 409).
 */
export const uniqueSteps = async (tableId: string, changes: readonly UniqueChange[]): Promise<Step[]> => {
  const relevant = changes.filter(
    (c) =>
      c.field.unique &&
      !isEmptyCell(c.to) &&
      (isEmptyCell(c.from) || uniqueText(c.from as StoredCell) !== uniqueText(c.to as StoredCell)),
  );
  const seen = new Set<string>();
  for (const c of relevant) {
    const k = `${c.field.id}#${uniqueText(c.to as StoredCell)}`;
    if (seen.has(k))
      throw new ValidationError(
        `Field "${c.field.name}" (${c.field.id}) must be unique: a value repeats in this request`,
      );
    seen.add(k);
  }
  const claimKeys = relevant.map((c) => claimKey(tableId, c.field.id, uniqueText(c.to as StoredCell)));
  const held = claimKeys.length ? await getItems(claimKeys) : undefined;
  const steps: Step[] = [];
  for (const [i, c] of relevant.entries()) {
    const key = claimKeys[i] as (typeof claimKeys)[number];
    const holder = claimHolder(held?.get(key));
    if (holder && holder !== c.recordId)
      throw new ValidationError(
        `Field "${c.field.name}" (${c.field.id}) must be unique: the value is already used`,
      );
    steps.push(takeClaim(key, c.recordId));
  }
  // Claims given up (a value cleared or changed) are released.
  for (const c of changes) {
    if (!c.field.unique || isEmptyCell(c.from)) continue;
    if (!isEmptyCell(c.to) && uniqueText(c.from as StoredCell) === uniqueText(c.to as StoredCell)) continue;
    steps.push(releaseClaim(claimKey(tableId, c.field.id, uniqueText(c.from as StoredCell)), c.recordId));
  }
  return steps;
};

/**
 * The steps that make a field's claims match its values when the field becomes or stays unique
 * through a schema change (every value claimed by its record, claims of values no record holds
 * removed), or gives them all up when it is no longer unique. Two records holding one value make
 * it a 400 naming them: the field cannot be unique over that data.
 */
export const claimRebuildSteps = async (
  tableId: string,
  field: Field,
  values: Iterable<[recordId: string, value: StoredCell | undefined]>,
): Promise<Step[]> => {
  const existing = new Map(
    (await fieldClaims(tableId, field.id)).map((c) => [JSON.stringify(c.key), c] as const),
  );
  if (!field.unique) return [...existing.values()].map((c) => dropClaim(c.key, c.recordId));
  const wanted = new Map<string, { key: ReturnType<typeof claimKey>; recordId: string }>();
  for (const [recordId, value] of values) {
    if (isEmptyCell(value)) continue;
    const key = claimKey(tableId, field.id, uniqueText(value as StoredCell));
    const id = JSON.stringify(key);
    const other = wanted.get(id);
    if (other)
      throw new ValidationError(
        `Field "${field.name}" (${field.id}) cannot be unique: records ${[other.recordId, recordId].sort().join(' and ')} hold the same value`,
      );
    wanted.set(id, { key, recordId });
  }
  const steps: Step[] = [];
  for (const [id, c] of existing) if (!wanted.has(id)) steps.push(dropClaim(c.key, c.recordId));
  for (const [id, c] of wanted) {
    const before = existing.get(id)?.recordId;
    if (before !== c.recordId) steps.push(setClaim(c.key, c.recordId, before));
  }
  return steps;
};
