/**
 * An export too large for one request (`EXPORT#<tbl>` `<view or ->#<usr>`): the request that found
 * it so hands it to the worker and answers 503 with `Retry-After`; the worker writes the file to
 * the bucket; the caller's retry of the same export finds it here and is redirected to it
 * (`bulk/export.ts`). One per table, view and user: a newer export replaces an older one. It keeps
 * what the file was computed from (`signature`), so a retry after the data or the columns changed
 * exports again rather than answering an outdated file. Removed by TTL a day after it started, as
 * the bucket's lifecycle removes the file.
 */
import { ConflictError } from '#shared/core/errors.ts';
import { getItem, type Item, type TransactOp, updateItem } from '#shared/db/client.ts';
import { and, EXISTS } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';
import { count, optionalText, text } from './attributes.ts';

/** How long an export's item (and its file, by the bucket's lifecycle) is kept. */
export const EXPORT_FILE_SECONDS = 86_400;

export type ExportState = 'writing' | 'done' | 'failed';

export interface ExportFile {
  tableId: string;
  /** The view exported; undefined for the whole table. */
  viewId?: string;
  userId: string;
  /** This run of the export (a newer one replaces it). */
  exportId: string;
  /** What the file's shape is computed from: the columns and the view. */
  signature: string;
  /** The data it is computed from: the versions of the tables it reads. */
  dataSignature: string;
  state: ExportState;
  filename: string;
  /** Records to write, known when it was handed over (for the retry's wait). */
  rows: number;
  startedTime: string;
  /** Once written: the object in the bucket and its size. */
  objectKey?: string;
  bytes?: number;
  finishedTime?: string;
  /** Why the worker could not write it. */
  failure?: string;
}

const keyOf = (tableId: string, viewId: string | undefined, userId: string) =>
  keys.exportFile(tableId, viewId ?? '-', userId);

const STATES: readonly ExportState[] = ['writing', 'done', 'failed'];

const exportFileOf = (item: Item): ExportFile => {
  const viewId = optionalText(item.viewId);
  const objectKey = optionalText(item.objectKey);
  const finishedTime = optionalText(item.finishedTime);
  const failure = optionalText(item.failure);
  return {
    tableId: text(item.tableId),
    ...(viewId ? { viewId } : {}),
    userId: text(item.userId),
    exportId: text(item.exportId),
    signature: text(item.signature),
    dataSignature: text(item.dataSignature),
    state: STATES.find((s) => s === item.state) ?? 'failed',
    filename: text(item.filename),
    rows: count(item.rows),
    startedTime: text(item.startedTime),
    ...(objectKey ? { objectKey, bytes: count(item.bytes) } : {}),
    ...(finishedTime ? { finishedTime } : {}),
    ...(failure ? { failure } : {}),
  };
};

/** The caller's latest export of a table or view, if one was handed to the worker (read strongly). */
export const readExportFile = async (
  tableId: string,
  viewId: string | undefined,
  userId: string,
): Promise<ExportFile | undefined> => {
  const item = await getItem(keyOf(tableId, viewId, userId));
  return item ? exportFileOf(item) : undefined;
};

/** The put that records an export handed to the worker (replacing the caller's earlier one). */
export const startExportOp = (file: Omit<ExportFile, 'state' | 'startedTime'>, now: Date): TransactOp => ({
  put: {
    ...keyOf(file.tableId, file.viewId, file.userId),
    type: 'exportFile',
    ...file,
    state: 'writing',
    startedTime: now.toISOString(),
    expiresAt: Math.floor(now.getTime() / 1000) + EXPORT_FILE_SECONDS,
  },
});

/**
 * Records the end of one run of an export: its file, or why there is none. False when that run
 * is no longer the caller's latest (a newer export replaced it, or it ended already): its outcome
 * is then not recorded.
 */
export const finishExportFile = async (
  file: Pick<ExportFile, 'tableId' | 'viewId' | 'userId' | 'exportId'>,
  outcome: { objectKey: string; bytes: number } | { failure: string },
  now: Date,
): Promise<boolean> => {
  const done = 'objectKey' in outcome;
  try {
    await updateItem(
      {
        key: keyOf(file.tableId, file.viewId, file.userId),
        update: done
          ? 'SET #state = :state, objectKey = :key, bytes = :bytes, finishedTime = :now'
          : 'SET #state = :state, failure = :failure, finishedTime = :now',
        condition: and(EXISTS, 'exportId = :id', '#state = :writing'),
        names: { '#state': 'state' },
        values: {
          ':id': file.exportId,
          ':writing': 'writing',
          ':state': done ? 'done' : 'failed',
          ':now': now.toISOString(),
          ...(done
            ? { ':key': outcome.objectKey, ':bytes': outcome.bytes }
            : { ':failure': outcome.failure }),
        },
      },
      () => new ConflictError('the export was replaced'),
      'NONE',
    );
    return true;
  } catch (error) {
    if (error instanceof ConflictError) return false;
    throw error;
  }
};

/** The worker job's resource id of an export: table, view (`-`) and user. Pure. */
export const exportJobId = (file: Pick<ExportFile, 'tableId' | 'viewId' | 'userId'>): string =>
  `${file.tableId}.${file.viewId ?? '-'}.${file.userId}`;

/** The table, view and user an export job's resource id names; undefined if it names none. Pure. */
export const exportOfJobId = (
  resourceId: string,
): Pick<ExportFile, 'tableId' | 'viewId' | 'userId'> | undefined => {
  const [tableId, view, userId, ...rest] = resourceId.split('.');
  if (!tableId || !view || !userId || rest.length) return undefined;
  return { tableId, ...(view === '-' ? {} : { viewId: view }), userId };
};
