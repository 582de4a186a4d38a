/**
 * Import (data-flow.md 7, Teable's `import/*` routes): a CSV uploaded as an attachment (signature,
 * upload, notify) is analyzed — its head read, its columns' types proposed (`infer.ts`) — then
 * imported into a new table or appended to an existing one through a column map. An Excel
 * workbook (`.xlsx`) is read the same way, each worksheet its own (`xlsx-read.ts`).
 *
 * An import runs as a background job of the purge worker, so a file of any size never holds a
 * request: the request checks the options, creates the table (a new-table import), writes the job
 * and answers at once; `GET /api/job/import/{tableId}` tells its progress and, at the end, its
 * report. The worker first reads the whole file once without writing (a file that cannot be read —
 * not UTF-8, a quote never closed, a row over 1 MB, over 500 columns, no rows — fails the import
 * before any row is written), then writes it in chunks of 1,000 rows (the most one record write takes), the job's progress landing in
 * the transaction that completes each chunk's write: an import stopped by a crash or by the worker's time budget
 * resumes after the last chunk written (resumable, never a row twice). Values go through typecast;
 * a value typecast cannot take (a number column's `abc`) leaves its cell empty and is reported
 * (row, column, reason), as is a row with more cells than columns; no row is dropped.
 */

import type { Readable } from 'node:stream';
import { confirmedAttachment } from '#shared/attachments/files.ts';
import type { Principal } from '#shared/auth/permission.ts';
import { type Located, locateNow } from '#shared/auth/resources.ts';
import { captureLagMs } from '#shared/changes/capture-lag.ts';
import { config } from '#shared/config.ts';
import { ConflictError, NotFoundError, ValidationError } from '#shared/core/errors.ts';
import { SCOPES } from '#shared/core/rights.ts';
import { transact } from '#shared/db/commit.ts';
import { withRequestScope } from '#shared/db/request-scope.ts';
import { TOKEN_PATTERN } from '#shared/entities/attachments.ts';
import { changesBefore } from '#shared/entities/change-log.ts';
import {
  failImport,
  type ImportJob,
  importProgressOp,
  type RowError,
  readImportJob,
  setImportTotal,
  startImportOp,
} from '#shared/entities/import-jobs.ts';
import type { Field } from '#shared/fields/field-types.ts';
import { fieldKind } from '#shared/fields/registry.ts';
import { purgeQueue } from '#shared/jobs/purge-queue.ts';
import { createRecords, MAX_RECORDS_PER_CALL } from '#shared/records/create.ts';
import { loadSchema, type TableSchema } from '#shared/schema/schema.ts';
import { objectStream } from '#shared/storage/objects.ts';
import { csvRows } from './csv-read.ts';
import { hasInferredOptions, inferColumns, inferredOptions, numberOf } from './infer.ts';
import { captureBehindMs, uncaptured } from './pacing.ts';
import { xlsxSheets } from './xlsx-read.ts';

/** Rows an analysis reads to propose types. */
export const SAMPLE_ROWS = 1000;
/** How long one chunk's write may take (a journaled write of 1,000 records takes about a second). */
const CHUNK_MS = 5 * 60_000;
/**
 * Rows written per chunk (one write each): the most one record write takes (`MAX_RECORDS_PER_CALL`);
 * against 500, a third fewer round trips a row (the bench: 154 against 253 for 20,000 rows).
 * Chunks go one after another: rows keep the file's order in their autoNumbers, a select choice
 * a chunk's typecast adds is in the schema the next one converts against, and the progress lands
 * in order.
 */
export const IMPORT_CHUNK = MAX_RECORDS_PER_CALL;

export type FileType = 'csv' | 'excel';

/**
 * The uploaded file an `attachmentUrl` names: the notify answer's `presignedUrl` (or `url`, or the
 * token itself) of a file the caller uploaded — or, importing into a base (`baseId`, whose rights the
 * route checked), a file of that base. Any other URL is a 400: the service reads only files uploaded
 * to it, never a URL elsewhere. Any other file is a 404.
 */
export const importFileOf = async (
  principal: Principal,
  attachmentUrl: string,
  fileType: FileType,
  baseId?: string,
) => {
  const token = tokenOfUrl(attachmentUrl);
  if (!token)
    throw new ValidationError(
      'attachmentUrl: give the presignedUrl (or token) of a file uploaded to this service',
    );
  const file = await confirmedAttachment(token);
  if (file.userId !== principal.userId && (baseId === undefined || file.baseId !== baseId))
    throw new NotFoundError(`Attachment ${token} not found`);
  if (fileType === 'excel' && file.mimetype !== XLSX)
    throw new ValidationError(`The file is ${file.mimetype}, not an Excel workbook (.xlsx)`);
  if (fileType === 'csv' && NOT_TEXT.some((prefix) => file.mimetype.startsWith(prefix)))
    throw new ValidationError(`The file is ${file.mimetype}, not CSV`);
  return { ...file, fileType };
};

/** The token a URL of an uploaded file ends with (its object key's last segment), if any. Pure. */
export const tokenOfUrl = (url: string): string | undefined => {
  if (TOKEN_PATTERN.test(url)) return url;
  let path: string;
  try {
    path = new URL(url, 'http://relative.invalid').pathname;
  } catch {
    return undefined;
  }
  const last = decodeURIComponent(path.split('/').pop() ?? '');
  return TOKEN_PATTERN.test(last) ? last : undefined;
};

/** The type an Excel workbook's bytes are read as. */
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
/** Types a CSV is not (what the bytes said at upload). */
const NOT_TEXT = ['image/', 'video/', 'audio/', 'font/', 'application/pdf', 'application/zip', XLSX];

const streamOf = async (path: string): Promise<Readable> => {
  const stream = await objectStream(path);
  if (!stream) throw new ValidationError('The uploaded file is gone');
  return stream as Readable;
};

/** The worksheets of a file: a CSV's one (`SHEET_KEY`), or a workbook's, by name. */
async function* sheetsOf(file: {
  path: string;
  fileType: FileType;
}): AsyncGenerator<{ key: string; rows: AsyncGenerator<string[]> }> {
  const stream = await streamOf(file.path);
  if (file.fileType === 'csv') {
    yield { key: SHEET_KEY, rows: csvRows(stream) };
    return;
  }
  let any = false;
  for await (const sheet of xlsxSheets(stream)) {
    any = true;
    yield { key: sheet.name, rows: sheet.rows };
  }
  if (!any) throw new ValidationError('The workbook has no worksheets');
}

/** The rows of one worksheet of a file (a CSV's only one); a sheet not there is a 400. */
async function* rowsOf(file: { path: string; fileType: FileType; sheet?: string }): AsyncGenerator<string[]> {
  for await (const sheet of sheetsOf(file)) {
    if (file.fileType === 'excel' && file.sheet !== undefined && sheet.key !== file.sheet) {
      for await (const _ of sheet.rows); // a workbook's sheets come one after the other
      continue;
    }
    let any = false;
    for await (const row of sheet.rows) {
      any = true;
      yield row;
    }
    if (!any) throw new ValidationError(`The worksheet ${JSON.stringify(sheet.key)} has no rows`);
    return;
  }
  throw new ValidationError(`The workbook has no worksheet ${JSON.stringify(file.sheet)}`);
}

/** `GET /import/analyze`: the columns of the file's head, with proposed types (Teable's `analyzeVo`). */
export const analyzeFile = async (principal: Principal, attachmentUrl: string, fileType: FileType) => {
  const file = await importFileOf(principal, attachmentUrl, fileType);
  const worksheets: Record<string, { name: string; columns: { type: string; name: string }[] }> = {};
  for await (const sheet of sheetsOf(file)) {
    const rows: string[][] = [];
    for await (const row of sheet.rows) {
      // a CSV stops at the sample; a workbook's sheet is read to its end (the next sheet follows it)
      if (rows.length <= SAMPLE_ROWS) rows.push(row);
      else if (file.fileType === 'csv') break;
    }
    if (!rows.length) continue;
    const [header, ...sample] = rows;
    const width = Math.max(...rows.map((r) => r.length));
    // the inferred types are Teable's field type names; the answer is Teable's `{type, name}`
    // (a number column's precision is inferred again, from the same rows, when it is imported)
    const columns = inferColumns(header, sample, width).map((c) => ({ type: c.type, name: c.name }));
    worksheets[sheet.key] = { name: file.fileType === 'csv' ? sheetNameOf(file.name) : sheet.key, columns };
  }
  if (!Object.keys(worksheets).length) throw new ValidationError('The workbook has no rows in any worksheet');
  return { worksheets };
};

/** A column of a new-table import, as the request names it. */
export interface ImportColumn {
  name: string;
  type: string;
  sourceColumnIndex: number;
  options?: Record<string, unknown>;
}

/**
 * The fields a new-table import creates, one per column: its name, type and options — the
 * column's own, or, for a column without any, what its values in the rows the analysis reads call
 * for (`inferredOptions`: a number's precision), so an import whose columns carry no options
 * (Teable's client sends name and type) shows the numbers as the file does. The head is read only
 * when a column needs it; a file that cannot be read gets the defaults here (the import's job
 * reports why it fails).
 */
export const importedFields = async (
  file: { path: string; fileType: FileType },
  sheet: string,
  columns: readonly ImportColumn[],
  useFirstRowAsHeader: boolean,
): Promise<{ name: string; type: string; options?: Record<string, unknown> }[]> => {
  const sample: string[][] = [];
  if (columns.some((c) => c.options === undefined && hasInferredOptions(c.type))) {
    try {
      for await (const row of rowsOf({ ...file, sheet })) {
        if (sample.length > SAMPLE_ROWS) break;
        sample.push(row);
      }
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      sample.length = 0;
    }
    if (useFirstRowAsHeader) sample.shift();
  }
  return columns.map(({ name, type, sourceColumnIndex, options }) => {
    const inferred =
      options ??
      inferredOptions(
        type,
        sample.map((row) => row[sourceColumnIndex] ?? ''),
      );
    return inferred ? { name, type, options: inferred } : { name, type };
  });
};

/** A CSV has one sheet; Teable names its key so. */
export const SHEET_KEY = 'Import Table';

const sheetNameOf = (name: string | undefined) =>
  (name ? name.replace(/\.[^.]+$/, '') : 'Import') || 'Import';

/** Writes an import's job (a 409 when one into the table runs) and sends it to the worker. */
const startImport = async (
  principal: Principal,
  table: { id: string; baseId: string },
  input: { file: { token: string; path: string; fileType: FileType }; sheet: string },
  columns: ImportJob['columns'],
  skipFirst: boolean,
) => {
  const job = {
    tableId: table.id,
    baseId: table.baseId,
    userId: principal.userId,
    userName: principal.name,
    userEmail: principal.email,
    token: input.file.token,
    path: input.file.path,
    fileType: input.file.fileType,
    sheet: input.sheet,
    columns,
    skipFirst,
  };
  await transact(
    [startImportOp(job, new Date())],
    () => new ConflictError('An import into this table is running; wait for it to end'),
  );
  await (await purgeQueue()).send({ kind: 'import', resourceId: job.tableId });
};

/** The column map of a new-table import: each column its field, by position. */
export const startTableImport = async (
  principal: Principal,
  base: Located,
  input: {
    file: { token: string; path: string; fileType: FileType };
    sheet: string;
    schema: TableSchema;
    columns: { sourceColumnIndex: number }[];
    useFirstRowAsHeader: boolean;
  },
): Promise<void> => {
  const fields = input.schema.fields.filter((f) => !f.isComputed);
  const columns = input.columns.flatMap((c, i) => {
    const field = fields[i];
    return field ? [{ fieldId: field.id, index: c.sourceColumnIndex }] : [];
  });
  await startImport(
    principal,
    { id: input.schema.table.id, baseId: base.id },
    input,
    columns,
    input.useFirstRowAsHeader,
  );
};

/** `PATCH /import/{baseId}/{tableId}`: rows appended to a table through `sourceColumnMap` (field id → column). */
export const startInplaceImport = async (
  principal: Principal,
  schema: TableSchema,
  input: {
    file: { token: string; path: string; fileType: FileType };
    sheet: string;
    sourceColumnMap: Record<string, number | null>;
    excludeFirstRow: boolean;
  },
): Promise<void> => {
  const columns = Object.entries(input.sourceColumnMap).flatMap(([fieldId, index]) => {
    if (index === null) return [];
    const field = schema.fields.find((f) => f.id === fieldId);
    if (!field) throw new ValidationError(`insertConfig.sourceColumnMap: no field ${fieldId} in this table`);
    if (field.isComputed)
      throw new ValidationError(
        `insertConfig.sourceColumnMap: field "${field.name}" is computed and cannot be imported into`,
      );
    if (!Number.isInteger(index) || index < 0)
      throw new ValidationError(`insertConfig.sourceColumnMap.${fieldId}: a column index (0 or more)`);
    return [{ fieldId, index }];
  });
  if (!columns.length)
    throw new ValidationError('insertConfig.sourceColumnMap: map at least one column to a field');
  await startImport(
    principal,
    { id: schema.table.id, baseId: schema.table.baseId },
    input,
    columns,
    input.excludeFirstRow,
  );
};

/** The principal a worker acts as for the import's starter (the start was checked with their token). */
const starterOf = (job: ImportJob): Principal => ({
  userId: job.userId,
  name: job.userName,
  email: job.userEmail,
  isAdmin: false,
  tokenId: 'import',
  kind: 'personal',
  scopes: new Set(SCOPES),
});

const TYPE_WORDS: Record<string, string> = {
  number: 'a number',
  date: 'a date',
  rating: 'a rating',
  percent: 'a number',
  currency: 'a number',
};

/** Kinds whose typecast needs more than the value (users, links, files): their drops are not checked here. */
const UNCHECKED = new Set(['user', 'link', 'attachment']);

/** One data row as the fields' written values, and what typecast would not take. Pure but for the kinds. */
export const rowValues = (
  row: readonly string[],
  line: number,
  columns: readonly { field: Field; index: number }[],
  width: number,
): { fields: Record<string, unknown>; errors: RowError[] } => {
  const fields: Record<string, unknown> = {};
  const errors: RowError[] = [];
  if (row.length > width)
    errors.push({
      row: line,
      reason: `the row has ${row.length} cells, the file's columns are ${width}: the extra cells are left out`,
    });
  for (const { field, index } of columns) {
    const text = row[index] ?? '';
    if (text.trim() === '') continue;
    let value: unknown = text;
    if (field.type === 'number' || field.type === 'rating') value = numberOf(text);
    if (typeof value === 'number' && Number.isNaN(value)) {
      errors.push({
        row: line,
        column: field.name,
        reason: `"${text.slice(0, 50)}" is not ${TYPE_WORDS[field.type] ?? 'a number'}`,
      });
      continue;
    }
    // a checkbox's empty cell is its false: typecast leaving it empty drops nothing
    if (!UNCHECKED.has(field.type) && field.type !== 'checkbox') {
      const converted = fieldKind(field.type).typecast(value, field, PURE_CONTEXT);
      if (converted.value === undefined) {
        errors.push({
          row: line,
          column: field.name,
          reason: `"${text.slice(0, 50)}" is not ${TYPE_WORDS[field.type] ?? `a value of a ${field.type} field`}`,
        });
        continue;
      }
    }
    fields[field.id] = value;
  }
  return { fields, errors };
};

const PURE_CONTEXT = {
  now: new Date(0),
  user: { id: '', title: '', email: '' },
  collaborators: [],
  newChoiceId: () => 'choProbe',
};

/**
 * The change capture's lag past which an import waits before its next chunk (issue 49): the log
 * never falls minutes behind while rows keep arriving, and the other bases' entries, webhooks and
 * live messages are not left waiting behind an import. 3 s, not 10: the stream is one queue, so
 * another base's edit waits about as long as the capture is behind (the bench, 20,000 rows: at 10 s
 * a neighbour's p95 was 6.5 s; at 3 s, 1.8 s, for an import 14 % slower).
 */
export const PACE_LAG_MS = 3_000;
const PACE_POLL_MS = 250;
let paceLagMs = PACE_LAG_MS;
/** Test seam: the lag past which imports wait (`PACE_LAG_MS` unless a test sets another). */
export const paceImportsAt = (ms: number = PACE_LAG_MS) => {
  paceLagMs = ms;
};

/**
 * How far the change capture is behind an import's writes: what `npm start`'s poller reports; in
 * a deployed stage (`config.importPacesByLog`), what the base's log says of the chunks this run
 * wrote (`pacing.ts`: one query a check); else 0 (no capture runs: tests, scripts).
 */
const captureBehind = (baseId: string, chunkStarts: number[]) => async (): Promise<number> => {
  const local = captureLagMs();
  if (local !== undefined) return local;
  if (!config.importPacesByLog || chunkStarts.length === 0) return 0;
  const [newest] = await changesBefore(baseId, undefined, 1);
  const newestAt = newest ? Date.parse(newest.occurredAt) : undefined;
  const pending = uncaptured(chunkStarts, newestAt);
  chunkStarts.splice(0, chunkStarts.length, ...pending);
  return captureBehindMs(pending, newestAt, Date.now());
};

/**
 * Waits while the capture is more than `PACE_LAG_MS` behind (`captureBehind`). False when the
 * budget ran out meanwhile (the job is sent again and resumes after the last chunk written).
 */
const paced = async (budget: () => boolean, behind: () => Promise<number>): Promise<boolean> => {
  while ((await behind()) > paceLagMs) {
    if (!budget()) return false;
    await new Promise((resolve) => setTimeout(resolve, PACE_POLL_MS));
  }
  return true;
};

/**
 * Runs an import as far as `budget` allows: true when done (written, or failed before writing),
 * false when the budget ran out (the worker sends the job again; it resumes after the last chunk).
 */
export const runImport = async (tableId: string, budget: () => boolean): Promise<boolean> => {
  let job = await readImportJob(tableId);
  if (!job || job.failure) return true;
  let schema: TableSchema;
  let located: Located;
  try {
    [schema, located] = await Promise.all([
      loadSchema(tableId),
      locateNow({ kind: 'table', id: tableId }, job.userId),
    ]);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    await failImport(tableId, 'The table is gone');
    return true;
  }
  const columns = job.columns.flatMap(({ fieldId, index }) => {
    const field = schema.fields.find((f) => f.id === fieldId);
    return field && !field.isComputed ? [{ field, index }] : [];
  });
  // 1. the whole file once, writing nothing: what cannot be read fails the import before any row
  if (job.rowsTotal === undefined) {
    let rows = 0;
    try {
      for await (const _ of rowsOf(job)) rows++;
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      await failImport(tableId, error.message);
      return true;
    }
    const total = Math.max(0, rows - (job.skipFirst ? 1 : 0));
    await setImportTotal(tableId, total);
    job = { ...job, rowsTotal: total };
  }
  // 2. the rows, a chunk a write, each with the progress
  const principal = starterOf(job);
  let line = 0;
  let chunk: { fields: Record<string, unknown> }[] = [];
  let errors: RowError[] = [];
  const skip = job.rowsDone + (job.skipFirst ? 1 : 0);
  // when each chunk of this run began its write: how the log tells the capture's lag (`pacing.ts`)
  const chunkStarts: number[] = [];
  const behind = captureBehind(located.baseId ?? schema.table.baseId, chunkStarts);
  const flush = async () => {
    const current = job as ImportJob;
    const to = current.rowsDone + chunk.length;
    chunkStarts.push(Date.now());
    // each chunk a write of its own: its own time limit, and one txId in the change log
    await withRequestScope(
      CHUNK_MS,
      () =>
        createRecords(principal, located, schema, {
          records: chunk,
          fieldKeyType: 'id',
          typecast: true,
          alsoFinal: [importProgressOp(current, to, errors)],
        }),
      `import-${tableId}-${current.rowsDone}`,
    );
    job = {
      ...current,
      rowsDone: to,
      rowErrors: [...current.rowErrors, ...errors],
      errorCount: current.errorCount + errors.length,
    };
    chunk = [];
    errors = [];
    // a new select choice may have been added: later chunks convert against the schema as it is
    schema = await loadSchema(tableId);
  };
  let fileWidth = 0;
  // nothing written while the change capture is far behind (a restart resumes at the same row)
  if (!(await paced(budget, behind))) return false;
  for await (const row of rowsOf(job)) {
    line++;
    // the file's columns: its first row's (the header's, when it has one)
    if (line === 1) fileWidth = Math.max(row.length, ...columns.map((c) => c.index + 1));
    if (line <= skip) continue;
    const values = rowValues(row, line, columns, fileWidth);
    chunk.push({ fields: values.fields });
    errors.push(...values.errors);
    if (chunk.length >= IMPORT_CHUNK) {
      await flush();
      if (!budget() || !(await paced(budget, behind))) return false;
    }
  }
  if (chunk.length) await flush();
  return true;
};
