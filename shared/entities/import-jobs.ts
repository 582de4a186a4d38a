/**
 * The job item of a CSV import (`PURGE` `import#<tbl>`, type `purgeJob`, kind `import`): what the worker needs to run
 * it and where it got to. One import into a table at a time. Its progress moves in the write that
 * completes each chunk's records (`importProgressOp`), so an import stopped by a crash or a spent
 * budget resumes exactly after the last chunk written, never writing a row twice.
 */

import { NotFoundError } from '#shared/core/errors.ts';
import { getItem, type Item, type TransactOp, updateItem } from '#shared/db/client.ts';
import { EXISTS, NOT_EXISTS } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';

/** A row the import could not take as given: its line in the file, the column, and why. */
export interface RowError {
  row: number;
  column?: string;
  reason: string;
}

/** Errors an import keeps to report (the count goes on past them). */
export const MAX_REPORTED_ERRORS = 1000;

export interface ImportJob {
  tableId: string;
  baseId: string;
  /** Who started it (the records are theirs) and how they are named in the records. */
  userId: string;
  userName: string;
  userEmail: string;
  /** The uploaded file (its token and object), its kind, and the worksheet to read (Excel). */
  token: string;
  path: string;
  fileType: 'csv' | 'excel';
  sheet?: string;
  /** Which field each column goes to (columns without a field are skipped). */
  columns: { fieldId: string; index: number }[];
  /** The first row is a header, not data. */
  skipFirst: boolean;
  /** Data rows written so far. */
  rowsDone: number;
  /** Data rows of the file, once counted. */
  rowsTotal?: number;
  rowErrors: RowError[];
  errorCount: number;
  /** Why the import stopped without writing anything (the file could not be read). */
  failure?: string;
}

const jobKey = (tableId: string) => keys.purgeJob('import', tableId);

const importJobOf = (item: Item): ImportJob => ({
  tableId: String(item.resourceId),
  baseId: String(item.baseId),
  userId: String(item.userId),
  userName: String(item.userName ?? ''),
  userEmail: String(item.userEmail ?? ''),
  token: String(item.token),
  path: String(item.path),
  fileType: item.fileType === 'excel' ? 'excel' : 'csv',
  ...(typeof item.sheet === 'string' ? { sheet: item.sheet } : {}),
  columns: (item.columns as ImportJob['columns']) ?? [],
  skipFirst: item.skipFirst === true,
  rowsDone: typeof item.rowsDone === 'number' ? item.rowsDone : 0,
  ...(typeof item.rowsTotal === 'number' ? { rowsTotal: item.rowsTotal } : {}),
  rowErrors: Array.isArray(item.rowErrors) ? (item.rowErrors as RowError[]) : [],
  errorCount: typeof item.errorCount === 'number' ? item.errorCount : 0,
  ...(typeof item.failure === 'string' ? { failure: item.failure } : {}),
});

/** The item that starts an import (fails when one into the table is running: a 409 by the caller). */
export const startImportOp = (
  job: Omit<ImportJob, 'rowsDone' | 'rowErrors' | 'errorCount'>,
  now: Date,
): TransactOp => ({
  put: {
    ...jobKey(job.tableId),
    type: 'purgeJob',
    kind: 'import',
    resourceId: job.tableId,
    ...job,
    rowsDone: 0,
    rowErrors: [],
    errorCount: 0,
    createdTime: now.toISOString(),
    runs: 0,
  },
  condition: NOT_EXISTS,
});

/** The import into a table, while it runs; undefined once done (or never started). */
export const readImportJob = async (tableId: string): Promise<ImportJob | undefined> => {
  const item = await getItem(jobKey(tableId));
  return item ? importJobOf(item) : undefined;
};

/**
 * The progress of an import, moved with a chunk's records: an operation of the write's end (the
 * records' write `final`), so it lands exactly when the whole chunk has — never with part of it, as
 * a worker killed in the middle of a chunk's write leaves it (its units are undone by the repair,
 * and the import resumes at this chunk). On the condition that no other run moved it meanwhile;
 * should one have, this chunk's write is undone.
 */
export const importProgressOp = (job: ImportJob, to: number, errors: readonly RowError[]): TransactOp => ({
  update: {
    key: jobKey(job.tableId),
    update: 'SET rowsDone = :to, rowErrors = :errors, errorCount = :count',
    condition: 'rowsDone = :from',
    values: {
      ':from': job.rowsDone,
      ':to': to,
      ':errors': [...job.rowErrors, ...errors].slice(0, MAX_REPORTED_ERRORS),
      ':count': job.errorCount + errors.length,
    },
  },
});

/** Records how many data rows the file has (counted before any is written). */
export const setImportTotal = async (tableId: string, rowsTotal: number): Promise<void> => {
  await updateItem(
    { key: jobKey(tableId), update: 'SET rowsTotal = :n', condition: EXISTS, values: { ':n': rowsTotal } },
    () => new NotFoundError('import finished'),
    'NONE',
  );
};

/** Records why an import stopped before writing anything. */
export const failImport = async (tableId: string, failure: string): Promise<void> => {
  await updateItem(
    { key: jobKey(tableId), update: 'SET failure = :f', condition: EXISTS, values: { ':f': failure } },
    () => new NotFoundError('import finished'),
    'NONE',
  );
};

/** The import attributes a job's items carry, for its status (`job-status.ts`). */
export const IMPORT_ATTRIBUTES = ['rowsDone', 'rowsTotal', 'rowErrors', 'errorCount', 'failure'] as const;
