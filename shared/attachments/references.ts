/**
 * Which records hold which files, kept from the table's stream (data-flow.md 6: files of records
 * deleted for good and of tables purged are released; a file another cell holds stays). For each
 * record a batch touches, the files its cells held before the batch and after it are compared:
 * a file it took gets a reference and loses any release mark; a file it let go loses the
 * reference and, once no record holds it, is marked for release a day later (the purge worker's
 * sweep, `release.ts`). A table in the trash keeps its records, so their files stay; its purge
 * removes them, and the files go a day later.
 *
 * Marking goes mark first, then check (`markReleasable`, then `isReferenced`, then `markHeld`
 * when a record took the file meanwhile): a record that takes the file from another shard at the
 * same moment either is seen by the check or clears the mark after it, so a held file is never
 * left marked.
 */
import type { StreamRecord } from '#shared/db/stream.ts';
import {
  type AttachmentReference,
  dropReferences,
  isReferenced,
  putReferences,
} from '#shared/entities/attachment-references.ts';
import { markHeld, markReleasable } from '#shared/entities/attachments.ts';
import { tableOfRecordItem } from '#shared/entities/records.ts';

type Image = Readonly<Record<string, unknown>>;

/** A file a cell holds: its token and its object's path. */
interface HeldFile {
  token: string;
  path: string;
}

const isFileItem = (v: unknown): v is HeldFile =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as HeldFile).token === 'string' &&
  typeof (v as HeldFile).path === 'string' &&
  (v as HeldFile).path !== '' &&
  typeof (v as { mimetype?: unknown }).mimetype === 'string';

/** The files a record image's cells hold (attachment cells and lookups of them), by token. Pure. */
export const filesHeldBy = (image: Image | undefined): Map<string, string> => {
  const out = new Map<string, string>();
  if (!image) return out;
  for (const [name, value] of Object.entries(image)) {
    if (!name.startsWith('fld') || !Array.isArray(value)) continue;
    for (const item of value) if (isFileItem(item)) out.set(item.token, item.path);
  }
  return out;
};

/** What a batch changed: references taken and let go (and the paths of the files let go). Pure. */
export const referenceChanges = (
  records: readonly StreamRecord[],
): { taken: AttachmentReference[]; letGo: (AttachmentReference & { path: string })[] } => {
  // per record: what it held before its first change in the batch, and after its last
  const spans = new Map<string, { tableId: string; recordId: string; before?: Image; after?: Image }>();
  for (const r of records) {
    const image = r.newImage ?? r.oldImage;
    const tableId = image ? tableOfRecordItem(image) : undefined;
    if (!image || tableId === undefined || typeof image.id !== 'string') continue;
    const id = `${tableId}#${image.id}`;
    const span = spans.get(id) ?? { tableId, recordId: image.id, before: r.oldImage };
    span.after = r.newImage;
    spans.set(id, span);
  }
  const taken: AttachmentReference[] = [];
  const letGo: (AttachmentReference & { path: string })[] = [];
  for (const { tableId, recordId, before, after } of spans.values()) {
    const held = filesHeldBy(before);
    const holds = filesHeldBy(after);
    for (const token of holds.keys()) if (!held.has(token)) taken.push({ token, tableId, recordId });
    for (const [token, path] of held) if (!holds.has(token)) letGo.push({ token, tableId, recordId, path });
  }
  return { taken, letGo };
};

/**
 * Keeps the references of a batch of stream records (idempotent: a batch handed over again does
 * the same). Throws when a write fails, so the batch is handed over again: a reference missed
 * could release a file a cell holds.
 */
export const trackReferences = async (records: readonly StreamRecord[], now = new Date()): Promise<void> => {
  const { taken, letGo } = referenceChanges(records);
  if (!taken.length && !letGo.length) return;
  await putReferences(taken);
  await markHeld(taken.map((r) => r.token));
  await dropReferences(letGo);
  const paths = new Map(letGo.map((r) => [r.token, r.path]));
  const stillHeld = new Set(taken.map((r) => r.token));
  await Promise.all(
    [...paths].map(async ([token, path]) => {
      if (stillHeld.has(token)) return;
      await markReleasable(token, path, now);
      if (await isReferenced(token)) await markHeld([token]);
    }),
  );
};
