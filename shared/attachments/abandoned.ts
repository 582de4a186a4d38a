/**
 * Uploads signed and never confirmed (data-flow.md 6): their item expires a day after the
 * signature (TTL), and the stream processor, seeing it go, removes the object the caller may have
 * put there. Best effort: an object it fails to remove is logged and stays.
 */
import { logger } from '#shared/core/logger.ts';
import type { StreamRecord } from '#shared/db/stream.ts';
import { abandonedUploadPath } from '#shared/entities/attachments.ts';
import { deleteObjects } from '#shared/storage/objects.ts';

/** The objects of uploads whose pending item went in these stream records. Pure. */
export const abandonedPaths = (records: readonly StreamRecord[]): string[] =>
  records.flatMap((r) => {
    if (r.kind !== 'REMOVE' || !r.oldImage) return [];
    const path = abandonedUploadPath(r.oldImage);
    return path ? [path] : [];
  });

/** Removes the objects of abandoned uploads among the records (never throws). */
export const releaseAbandonedUploads = async (records: readonly StreamRecord[]): Promise<number> => {
  const paths = abandonedPaths(records);
  if (!paths.length) return 0;
  try {
    await deleteObjects(paths);
    return paths.length;
  } catch (error) {
    logger.warn('removing the objects of abandoned uploads failed; they stay', {
      paths,
      error: String(error),
    });
    return 0;
  }
};
