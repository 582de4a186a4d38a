/**
 * The stream processor's work, the same in the cloud (a Lambda fed by the table's stream) and on a
 * laptop (the local server's poller of DynamoDB Local's stream): stream records → drafts
 * (`capture.ts`) → each base's change log (`entities/change-log.ts`), in stream order.
 */
import { config } from '#shared/config.ts';
import { NotFoundError } from '#shared/core/errors.ts';
import type { StreamRecord } from '#shared/db/stream.ts';
import { readBase } from '#shared/entities/bases.ts';
import { appendChanges, type ChangeDraft, eventIdOf, expiryOf } from '#shared/entities/change-log.ts';
import {
  type DeletionNote,
  forgetDeletions,
  NOTE_GRACE_MS,
  noteDeletion,
  noteRemoval,
  removalsWaiting,
} from '#shared/entities/record-deletions.ts';
import { type FieldMeta, type HistoryItem, putHistory } from '#shared/entities/record-history.ts';
import { deletionNoteIn } from '#shared/entities/table-versions.ts';
import { loadSchema } from '#shared/schema/schema.ts';
import { attributed, type CaptureFacts, capturedItem, draftsOf, removalOf } from './capture.ts';

/** What one batch did: entries written, and the first record not captured (the batch resumes there). */
export interface CaptureOutcome {
  written: number;
  firstFailed?: StreamRecord;
}

/** What the capture knows of a table: `CaptureFacts`, and its fields as history shows them. */
type TableFacts = CaptureFacts & { fields: ReadonlyMap<string, FieldMeta> };

/** The facts of a table as it is now: its base and computed fields; no base once it is gone for good. */
const factsOf = async (tableId: string, records: readonly StreamRecord[]): Promise<TableFacts> => {
  try {
    const schema = await loadSchema(tableId);
    const base = schema.table.baseId ? await readBase(schema.table.baseId) : undefined;
    return {
      baseId: schema.table.baseId || undefined,
      computedFields: new Set(schema.fields.filter((f) => f.isComputed).map((f) => f.id)),
      // the table, or its base, in the trash (or the base gone): its records' removals are a purge
      trashed: Boolean(schema.table.deletedTime) || !base || Boolean(base.deletedTime || base.purgeTime),
      fields: new Map(
        schema.fields.map((f) => [
          f.id,
          { name: f.name, type: f.type, cellValueType: f.cellValueType, options: f.options },
        ]),
      ),
    };
  } catch (error) {
    // a read that failed fails the batch (it is handed over again); only a table gone is no table
    if (!(error instanceof NotFoundError)) throw error;
    // a table gone for good: its own item's last image still names its base
    const image = records
      .map((r) => r.oldImage ?? r.newImage)
      .find((i) => i?.type === 'table' && i.id === tableId);
    return {
      baseId: typeof image?.baseId === 'string' ? image.baseId : undefined,
      computedFields: new Set(),
      trashed: true,
      fields: new Map(),
    };
  }
};

/** One step of a base's capture, in stream order: drafts ready, or half of a record's deletion. */
type Step =
  | { kind: 'drafts'; drafts: ChangeDraft[] }
  | { kind: 'removal'; draft: ChangeDraft }
  | { kind: 'note'; tableId: string; recordId: string; note: DeletionNote };

/** What a base's capture works from: its steps in stream order, and its first record. */
interface BaseWork {
  steps: Step[];
  first: StreamRecord;
}

const keyOfStep = (step: Step): string | undefined =>
  step.kind === 'note'
    ? `${step.tableId}#${step.recordId}`
    : step.kind === 'removal'
      ? `${step.draft.tableId}#${step.draft.recordId ?? ''}`
      : undefined;

/**
 * A base's drafts in stream order, its deletions joined (`entities/record-deletions.ts`): a removal
 * and its note both in the batch join here, at the place of the one that came second; a half whose
 * other half is stored joins with it, at its own place; a removal without its note waits, and one
 * that has waited past `NOTE_GRACE_MS` is written as the system's. Answers the drafts, and the
 * stored deletions to forget once they are written.
 */
const draftsOfBase = async (
  baseId: string,
  steps: readonly Step[],
  now: Date,
): Promise<{ drafts: ChangeDraft[]; joined: { tableId: string; recordId: string }[] }> => {
  const removals = new Map<string, ChangeDraft>();
  const notes = new Map<string, DeletionNote>();
  const lastAt = new Map<string, number>();
  steps.forEach((step, i) => {
    const key = keyOfStep(step);
    if (step.kind === 'removal') removals.set(key as string, step.draft);
    if (step.kind === 'note') notes.set(key as string, step.note);
    if (key) lastAt.set(key, i);
  });
  const joined: { tableId: string; recordId: string }[] = [];
  const parts = await Promise.all(
    steps.map(async (step, i): Promise<ChangeDraft[]> => {
      if (step.kind === 'drafts') return step.drafts;
      const key = keyOfStep(step) as string;
      const removal = removals.get(key);
      const note = notes.get(key);
      const tableId = step.kind === 'note' ? step.tableId : step.draft.tableId;
      const recordId = step.kind === 'note' ? step.recordId : (step.draft.recordId ?? '');
      const where = { baseId, tableId, recordId };
      if (removal && note) return lastAt.get(key) === i ? [attributed(where, removalOf(removal), note)] : [];
      if (removal) {
        const stored = await noteRemoval(baseId, tableId, recordId, removalOf(removal), now);
        if (!stored) return [];
        joined.push({ tableId, recordId });
        return [attributed(where, removalOf(removal), stored)];
      }
      const stored = await noteDeletion(baseId, tableId, recordId, note as DeletionNote, now);
      if (!stored) return [];
      joined.push({ tableId, recordId });
      return [attributed(where, stored, note)];
    }),
  );
  const drafts = parts.flat();
  const overdue = await removalsWaiting(baseId, new Date(now.getTime() - NOTE_GRACE_MS).toISOString());
  for (const d of overdue) {
    if (!d.removal) continue;
    drafts.push(attributed({ baseId, tableId: d.tableId, recordId: d.recordId }, d.removal, undefined));
    joined.push({ tableId: d.tableId, recordId: d.recordId });
  }
  return { drafts, joined };
};

/**
 * Captures a batch of stream records (in stream order) into the change log. Safe to run again
 * with records already captured (each is written once). A base whose log cannot be written makes
 * the outcome name the first of the batch's records it holds, so the batch is resumed from there.
 */
export const captureBatch = async (
  records: readonly StreamRecord[],
  retentionDays = config.changeLogDays,
  now = new Date(),
): Promise<CaptureOutcome> => {
  const tables = new Map<string, StreamRecord[]>();
  const noteOf = new Map<StreamRecord, NonNullable<ReturnType<typeof deletionNoteIn>>>();
  for (const r of records) {
    const note = deletionNoteIn(r.oldImage, r.newImage);
    if (note) noteOf.set(r, note);
    const tableId = note?.tableId ?? capturedItem(r)?.tableId;
    if (tableId) tables.set(tableId, [...(tables.get(tableId) ?? []), r]);
  }
  const facts = new Map(
    await Promise.all(
      [...tables].map(async ([tableId, rs]) => [tableId, await factsOf(tableId, rs)] as const),
    ),
  );
  const byBase = new Map<string, BaseWork>();
  const add = (baseId: string, r: StreamRecord, step: Step) => {
    const work = byBase.get(baseId) ?? { steps: [], first: r };
    work.steps.push(step);
    byBase.set(baseId, work);
  };
  for (const r of records) {
    const note = noteOf.get(r);
    if (note) {
      const baseId = facts.get(note.tableId)?.baseId;
      if (baseId === undefined) continue;
      const { tableId, recordIds, ...who } = note;
      for (const recordId of recordIds) add(baseId, r, { kind: 'note', tableId, recordId, note: who });
      continue;
    }
    const item = capturedItem(r);
    const f = item && facts.get(item.tableId);
    if (!f) continue;
    // a table item names its base itself (a table created in this batch, or one gone since)
    const baseId = item.kind === 'table' ? (r.newImage?.baseId ?? r.oldImage?.baseId) : undefined;
    const drafts = draftsOf(r, typeof baseId === 'string' ? { ...f, baseId } : f);
    const ready = drafts.filter((d) => d.type !== 'record.deleted');
    for (const d of drafts) if (d.type === 'record.deleted') add(d.baseId, r, { kind: 'removal', draft: d });
    if (ready.length) add((ready[0] as ChangeDraft).baseId, r, { kind: 'drafts', drafts: ready });
  }
  const expiresAt = expiryOf(now, retentionDays);
  const results = await Promise.allSettled(
    [...byBase].map(async ([baseId, { steps }]) => {
      const { drafts, joined } = await draftsOfBase(baseId, steps, now);
      // history first: its puts are idempotent, and a draft in the log is never handed over again
      await putHistory(historyOf(drafts, facts), expiresAt);
      const written = await appendChanges(baseId, drafts, expiresAt);
      await forgetDeletions(baseId, joined);
      return written;
    }),
  );
  let written = 0;
  let firstFailed: StreamRecord | undefined;
  const groups = [...byBase.values()];
  for (const [i, result] of results.entries()) {
    if (result.status === 'fulfilled') written += result.value.length;
    else {
      const first = groups[i]?.first;
      if (first && (!firstFailed || records.indexOf(first) < records.indexOf(firstFailed)))
        firstFailed = first;
    }
  }
  return firstFailed ? { written, firstFailed } : { written };
};

/**
 * The history items of drafts (data-flow.md 2): one per field a caller's update changed (not
 * creates, deletes or computed changes), with the field as it is now; a field gone since is left
 * out. Pure.
 */
export const historyOf = (
  drafts: readonly ChangeDraft[],
  facts: ReadonlyMap<string, { fields: ReadonlyMap<string, FieldMeta> }>,
): HistoryItem[] =>
  drafts.flatMap((d) => {
    if (d.type !== 'record.updated' || d.computed || !d.recordId) return [];
    const fields = facts.get(d.tableId)?.fields;
    const changed = [...new Set([...Object.keys(d.before ?? {}), ...Object.keys(d.after ?? {})])];
    return changed.flatMap((fieldId): HistoryItem[] => {
      const meta = fields?.get(fieldId);
      if (!meta) return [];
      return [
        {
          id: eventIdOf(d.sourceId),
          tableId: d.tableId,
          recordId: d.recordId as string,
          fieldId,
          before: { meta, data: d.before?.[fieldId] ?? null },
          after: { meta, data: d.after?.[fieldId] ?? null },
          createdTime: d.occurredAt,
          createdBy: d.actor.id,
        },
      ];
    });
  });
