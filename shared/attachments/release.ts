/**
 * The release of files no cell holds (data-flow.md 6), run by the purge worker's sweep (hourly in
 * the cloud, every few minutes under `npm start`): for each entry of the release list that is due,
 * the file is released if its item is still marked for that time and no record holds it — its
 * item removed first, then its object and thumbnails; an entry whose file a cell took again, or
 * that was marked again later, is dropped. Safe to run twice at once and after a fault: an entry
 * stays until its objects are gone.
 */
import { logger } from '#shared/core/logger.ts';
import { isReferenced } from '#shared/entities/attachment-references.ts';
import { markHeld, readAttachment, removeReleasedAttachment } from '#shared/entities/attachments.ts';
import {
  dropReleases,
  type FileRelease,
  noteItemRemoved,
  releasesDue,
} from '#shared/entities/file-releases.ts';
import { THUMBNAIL_SIZES, thumbnailPath } from '#shared/fields/kinds/attachment.ts';
import { deleteObjects } from '#shared/storage/objects.ts';

/** What one sweep did. */
export interface ReleaseReport {
  /** Files whose item and objects are gone. */
  released: number;
  /** Entries dropped because a cell holds their file again (or a later mark replaced them). */
  kept: number;
}

/** The objects of a file: itself and its thumbnails (missing ones are no error to delete). Pure. */
export const objectsOf = (path: string): string[] => [
  path,
  ...THUMBNAIL_SIZES.map((s) => thumbnailPath(path, s)),
];

/**
 * Decides one entry: the file released (its item, then its objects), or kept — a cell holds it
 * again, or a later mark has its own entry. A file whose item is already gone (a sweep interrupted
 * after removing it) only has its objects left to delete.
 */
const settle = async (entry: FileRelease): Promise<'released' | 'kept'> => {
  const file = entry.itemRemoved ? undefined : await readAttachment(entry.token);
  if (file) {
    if (file.releaseAfter !== entry.dueTime) return 'kept';
    if (await isReferenced(entry.token)) {
      await markHeld([entry.token]); // the stream clears it too; this keeps a held file unmarked
      return 'kept';
    }
    if (!(await removeReleasedAttachment(entry.token, entry.dueTime))) return 'kept';
    await noteItemRemoved(entry);
  }
  await deleteObjects(objectsOf(entry.path));
  return 'released';
};

/** Releases the files due by `now` (a page of each shard a call; the next sweep takes the rest). */
export const releaseDueFiles = async (now = new Date()): Promise<ReleaseReport> => {
  const due = await releasesDue(now);
  const report: ReleaseReport = { released: 0, kept: 0 };
  const done: FileRelease[] = [];
  for (const entry of due) {
    try {
      report[await settle(entry)]++;
      done.push(entry);
    } catch (error) {
      logger.warn('a file due for release could not be released now; the next sweep tries again', {
        token: entry.token,
        error: String(error),
      });
    }
  }
  await dropReleases(done);
  if (due.length) logger.info('released files no cell holds', { ...report });
  return report;
};
