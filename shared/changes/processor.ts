/**
 * The stream processor's work, the same in the cloud (a Lambda fed by the table's stream) and on a
 * laptop (the local server's poller of DynamoDB Local's stream): stream records → drafts
 * (`capture.ts`) → each base's change log (`entities/change-log.ts`), in stream order.
 */
import { config } from '#shared/config.ts';
import type { StreamRecord } from '#shared/db/stream.ts';
import { appendChanges, type ChangeDraft, eventIdOf, expiryOf } from '#shared/entities/change-log.ts';
import { type FieldMeta, type HistoryItem, putHistory } from '#shared/entities/record-history.ts';
import { loadSchema } from '#shared/schema/schema.ts';
import { type CaptureFacts, capturedItem, draftsOf } from './capture.ts';

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
    return {
      baseId: schema.table.baseId || undefined,
      computedFields: new Set(schema.fields.filter((f) => f.isComputed).map((f) => f.id)),
      fields: new Map(
        schema.fields.map((f) => [
          f.id,
          { name: f.name, type: f.type, cellValueType: f.cellValueType, options: f.options },
        ]),
      ),
    };
  } catch {
    // a table gone for good: its own item's last image still names its base
    const image = records
      .map((r) => r.oldImage ?? r.newImage)
      .find((i) => i?.type === 'table' && i.id === tableId);
    return {
      baseId: typeof image?.baseId === 'string' ? image.baseId : undefined,
      computedFields: new Set(),
      fields: new Map(),
    };
  }
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
  for (const r of records) {
    const item = capturedItem(r);
    if (item) tables.set(item.tableId, [...(tables.get(item.tableId) ?? []), r]);
  }
  const facts = new Map(
    await Promise.all(
      [...tables].map(async ([tableId, rs]) => [tableId, await factsOf(tableId, rs)] as const),
    ),
  );
  const byBase = new Map<string, { drafts: ChangeDraft[]; first: StreamRecord }>();
  for (const r of records) {
    const item = capturedItem(r);
    const f = item && facts.get(item.tableId);
    if (!f) continue;
    // a table item names its base itself (a table created in this batch, or one gone since)
    const baseId = item.kind === 'table' ? (r.newImage?.baseId ?? r.oldImage?.baseId) : undefined;
    const drafts = draftsOf(r, typeof baseId === 'string' ? { ...f, baseId } : f);
    for (const d of drafts) {
      const group = byBase.get(d.baseId) ?? { drafts: [], first: r };
      group.drafts.push(d);
      byBase.set(d.baseId, group);
    }
  }
  const expiresAt = expiryOf(now, retentionDays);
  const results = await Promise.allSettled(
    [...byBase].map(async ([baseId, { drafts }]) => {
      // history first: its puts are idempotent, and a draft in the log is never handed over again
      await putHistory(historyOf(drafts, facts), expiresAt);
      return appendChanges(baseId, drafts, expiresAt);
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
