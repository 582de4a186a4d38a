import type { TrashType } from '#shared/entities/trash-items.ts';

/**
 * A background job of the purge worker: a permanent delete it still has to empty (`space`,
 * `base`, `table`), a renamed user's name to carry into the records (`userCells`, the user's
 * id), an uploaded image's thumbnails to make (`thumbnails`, the file's token), or a CSV's rows
 * to import into a table (`import`, the table's id), or a large export to write to the bucket
 * (`export`, `entities/export-files.ts` `exportJobId`). The request writes the job item (`keys.purgeJob`) in the same transaction as its own
 * change, then sends this message; the worker deletes the job item when the job is done.
 */
export interface PurgeJob {
  kind: JobKind;
  resourceId: string;
}

export type JobKind = TrashType | 'userCells' | 'thumbnails' | 'import' | 'export';
/** Every kind of background job. */
export const JOB_KINDS = [
  'space',
  'base',
  'table',
  'userCells',
  'thumbnails',
  'import',
  'export',
] as const satisfies readonly JobKind[];

/** Where permanent deletes are handed to the purge worker. */
export interface PurgeQueue {
  send(job: PurgeJob, options?: { delaySeconds?: number }): Promise<void>;
}
