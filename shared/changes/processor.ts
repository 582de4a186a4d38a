/**
 * The stream processor's work, the same in the cloud (a Lambda fed by the table's stream) and on a
 * laptop (the local server's poller of DynamoDB Local's stream): stream records → drafts
 * (`capture.ts`) → each base's change log (`entities/change-log.ts`), in stream order; the files
 * records hold are tracked (`attachments/references.ts`); and the objects of uploads whose
 * pending item expired are removed (`attachments/abandoned.ts`); a base's webhooks are woken to
 * deliver what was written (`webhooks/queue.ts`).
 */
import { releaseAbandonedUploads } from '#shared/attachments/abandoned.ts';
import { trackReferences } from '#shared/attachments/references.ts';
import { config } from '#shared/config.ts';
import { NotFoundError } from '#shared/core/errors.ts';
import type { StreamRecord } from '#shared/db/stream.ts';
import { readBase } from '#shared/entities/bases.ts';
import { appendChanges, type ChangeDraft, eventIdOf, expiryOf } from '#shared/entities/change-log.ts';
import {
  DELETED_TYPES,
  type DeletionNote,
  forgetDeletions,
  NOTE_GRACE_MS,
  noteDeletion,
  noteRemoval,
  removalsWaiting,
} from '#shared/entities/record-deletions.ts';
import { type FieldMeta, type HistoryItem, putHistory } from '#shared/entities/record-history.ts';
import { schemaDeletionNoteIn } from '#shared/entities/schema-items.ts';
import { deletionNoteIn } from '#shared/entities/table-versions.ts';
import { hasWebhooks } from '#shared/entities/webhooks.ts';
import { publishLive } from '#shared/live/publish.ts';
import { loadSchema } from '#shared/schema/schema.ts';
import { webhookQueue } from '#shared/webhooks/queue.ts';
import {
  attributed,
  type CaptureFacts,
  capturedItem,
  deletedItemId,
  draftsOf,
  removalOf,
} from './capture.ts';

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

/** One step of a base's capture, in stream order: drafts ready, or half of a deletion. */
type Step =
  | { kind: 'drafts'; drafts: ChangeDraft[] }
  | { kind: 'removal'; draft: ChangeDraft }
  | { kind: 'note'; tableId: string; itemId: string; note: DeletionNote };

/** What a base's capture works from: its steps in stream order, and its first record. */
interface BaseWork {
  steps: Step[];
  first: StreamRecord;
}

/** The table and the item a join step is about. */
const joinOf = (step: Step): { tableId: string; itemId: string } | undefined =>
  step.kind === 'note'
    ? { tableId: step.tableId, itemId: step.itemId }
    : step.kind === 'removal'
      ? { tableId: step.draft.tableId, itemId: deletedItemId(step.draft) }
      : undefined;

type Joined = { tableId: string; itemId: string };

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
): Promise<{ drafts: ChangeDraft[]; joined: Joined[] }> => {
  const keyOf = (j: Joined) => `${j.tableId}#${j.itemId}`;
  const removals = new Map<string, ChangeDraft>();
  const notes = new Map<string, DeletionNote>();
  const lastAt = new Map<string, number>();
  steps.forEach((step, i) => {
    const join = joinOf(step);
    if (!join) return;
    if (step.kind === 'removal') removals.set(keyOf(join), step.draft);
    if (step.kind === 'note') notes.set(keyOf(join), step.note);
    lastAt.set(keyOf(join), i);
  });
  const joined: Joined[] = [];
  const parts = await Promise.all(
    steps.map(async (step, i): Promise<ChangeDraft[]> => {
      const join = joinOf(step);
      if (step.kind === 'drafts' || !join) return step.kind === 'drafts' ? step.drafts : [];
      const { tableId, itemId } = join;
      const removal = removals.get(keyOf(join));
      const note = notes.get(keyOf(join));
      const where = { baseId, tableId, itemId };
      if (removal && note)
        return lastAt.get(keyOf(join)) === i ? [attributed(where, removalOf(removal), note)] : [];
      if (removal) {
        const stored = await noteRemoval(baseId, tableId, itemId, removalOf(removal), now);
        if (!stored) return [];
        joined.push(join);
        return [attributed(where, removalOf(removal), stored)];
      }
      const stored = await noteDeletion(baseId, tableId, itemId, note as DeletionNote, now);
      if (!stored) return [];
      joined.push(join);
      return [attributed(where, stored, note)];
    }),
  );
  const drafts = parts.flat();
  const overdue = await removalsWaiting(baseId, new Date(now.getTime() - NOTE_GRACE_MS).toISOString());
  for (const d of overdue) {
    if (!d.removal) continue;
    drafts.push(attributed({ baseId, tableId: d.tableId, itemId: d.itemId }, d.removal, undefined));
    joined.push({ tableId: d.tableId, itemId: d.itemId });
  }
  return { drafts, joined };
};

/** The deletion notes a stream record carries: of records (a data version), of fields and views (a table item). */
const notesIn = (r: StreamRecord): { tableId: string; itemIds: string[]; who: DeletionNote }[] => {
  const out: { tableId: string; itemIds: string[]; who: DeletionNote }[] = [];
  const records = deletionNoteIn(r.oldImage, r.newImage);
  if (records) {
    const { tableId, recordIds, ...who } = records;
    out.push({ tableId, itemIds: recordIds, who });
  }
  const schema = schemaDeletionNoteIn(r.oldImage, r.newImage);
  if (schema) {
    const { tableId, ids, ...who } = schema;
    out.push({ tableId, itemIds: ids, who });
  }
  return out;
};

/**
 * The tables whose change log a stream record feeds: its item's table and the tables its deletion
 * notes name (a data version carries the notes of records its write deleted). Pure.
 */
export const tablesFedBy = (r: StreamRecord, notes = notesIn(r)): string[] => {
  const ids = notes.map((n) => n.tableId);
  const own = capturedItem(r)?.tableId;
  return [...new Set(own ? [own, ...ids] : ids)];
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
  // first, and throwing on a fault (the batch is handed over again): a missed reference could release a held file
  await trackReferences(records, now);
  const tables = new Map<string, StreamRecord[]>();
  const notesOf = new Map<StreamRecord, ReturnType<typeof notesIn>>();
  for (const r of records) {
    const notes = notesIn(r);
    if (notes.length) notesOf.set(r, notes);
    for (const tableId of tablesFedBy(r, notes)) tables.set(tableId, [...(tables.get(tableId) ?? []), r]);
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
    for (const { tableId, itemIds, who } of notesOf.get(r) ?? []) {
      const baseId = facts.get(tableId)?.baseId;
      if (baseId === undefined) continue;
      for (const itemId of itemIds) add(baseId, r, { kind: 'note', tableId, itemId, note: who });
    }
    const item = capturedItem(r);
    const f = item && facts.get(item.tableId);
    if (!f) continue;
    // a table item names its base itself (a table created in this batch, or one gone since)
    const baseId = item.kind === 'table' ? (r.newImage?.baseId ?? r.oldImage?.baseId) : undefined;
    const drafts = draftsOf(r, typeof baseId === 'string' ? { ...f, baseId } : f);
    const isRemoval = (d: ChangeDraft) => (DELETED_TYPES as readonly string[]).includes(d.type);
    for (const d of drafts) if (isRemoval(d)) add(d.baseId, r, { kind: 'removal', draft: d });
    const ready = drafts.filter((d) => !isRemoval(d));
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
      // the base's webhooks deliver what was just written (best effort: the sweep and the next change also wake them)
      if (written.length && (await hasWebhooks(baseId))) await (await webhookQueue()).wake(baseId);
      await publishLive(baseId, written);
      return written;
    }),
  );
  // uploads signed and never confirmed: their item expired, their object goes too (best effort)
  await releaseAbandonedUploads(records);
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
