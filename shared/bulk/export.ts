/**
 * `GET /export/{tableId}` (data-flow.md 7, Teable's `exportCsvFromTable`): a table, or a view of it
 * (`viewId`: its filter, sort and visible fields, in its column order), as CSV — UTF-8 with BOM,
 * RFC 4180, each cell in its text form (as `cellFormat=text` answers it). Without a view: every
 * record in the default view's order, every field in its column order, hidden ones included.
 * A number is written with its field's precision (what a person sees: `1`, `1.50`, `0.125`), which
 * the import's analysis reads back as the column's precision (`infer.ts`). An unchecked checkbox is
 * an empty cell, as Teable's export writes it: Teable's import checks a box for any text it is
 * given (`false` too), so `false` would not survive there; our analysis reads a column of `true`
 * and empty cells as a checkbox.
 *
 * Memory stays bounded whatever the table's size: the order comes from the view's order index
 * when no filter or sort applies (keys only), else is computed once from the queried fields only
 * (`allMatching`, as the row count does); then the records are read and written a chunk at a time
 * (the next chunk read while one is written). A file of up to `DIRECT_BYTES` is answered directly;
 * a larger one is streamed into the bucket as it is written (a multipart upload: one 5 MB part in
 * memory at a time) and answered with a redirect (302) to a download URL valid 15 minutes. Export
 * files are removed by the bucket's lifecycle a day later.
 *
 * An export too large for one request's time is handed to the worker, never cut: as soon as the
 * rate of the chunks written so far says the rest would not finish in time, the request gives its
 * parts up, records the export (`entities/export-files.ts`) with a job in one write, and answers
 * 503 with `Retry-After` (the time the worker should need). The worker writes the whole file to
 * the bucket; the caller's retry of the same export — same table, view and caller, same columns
 * and view, and within 10 minutes of the hand-over or with no record changed since
 * (`exportSignature`) — is answered with the redirect to it (within an hour of its end), or 503
 * again while it is still being written. Otherwise the export is made anew. An export the worker cannot finish within its own time (15 minutes in
 * the stack) is answered 422 with why, for an hour; then it may be tried again.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  ConflictError,
  NotFoundError,
  ServiceUnavailableError,
  UnprocessableError,
} from '#shared/core/errors.ts';
import { transact } from '#shared/db/commit.ts';
import { remainingMs } from '#shared/db/request-scope.ts';
import {
  type ExportFile,
  exportJobId,
  exportOfJobId,
  finishExportFile,
  readExportFile,
  startExportOp,
} from '#shared/entities/export-files.ts';
import { getRecords, type RecordItem } from '#shared/entities/records.ts';
import { readDataVersions } from '#shared/entities/table-versions.ts';
import type { Field } from '#shared/fields/field-types.ts';
import { linkOptionsOf } from '#shared/fields/link-options.ts';
import { purgeJobOp, purgeQueue } from '#shared/jobs/purge-queue.ts';
import { allMatching, type ListContext } from '#shared/listing/list.ts';
import type { ListParams } from '#shared/listing/params.ts';
import { planListing, viewFieldIds } from '#shared/listing/resolve.ts';
import { viewOrderPage } from '#shared/listing/view-order.ts';
import { linkTitlesFor } from '#shared/records/link-cells.ts';
import { cellOf, renderCell } from '#shared/records/model.ts';
import { defaultView, loadSchema, type TableSchema, type View } from '#shared/schema/schema.ts';
import { findView } from '#shared/schema/views.ts';
import { downloadUrl } from '#shared/storage/download.ts';
import { deleteObjects, ObjectWriter } from '#shared/storage/objects.ts';
import { BOM, csvLine } from './csv.ts';

/** Largest CSV answered in the response itself (Lambda answers at most 6 MB). */
export const DIRECT_BYTES = 5 * 1024 * 1024;
/** Records read and written at a time (20 BatchGetItem calls in parallel). */
const CHUNK = 2000;
/** Time a request keeps for what follows its last chunk: the last part, the upload's end, the answer. */
const FINISH_MS = 3000;
/** How long a file the worker wrote (or its failure) answers retries of the same export. */
export const REUSE_MS = 60 * 60_000;
/** How long after an export began the caller's retries get its file, whatever changed since. */
const RETRY_MS = 10 * 60_000;
/** A handed-over export no worker has finished in this long is started again by the next request. */
const STALLED_MS = 20 * 60_000;

/** What an export answers: the CSV itself, or where to download it. */
export type ExportAnswer =
  | { csv: string; filename: string }
  | { location: string; filename: string; bytes: number };

/** The file name of a table's (or view's) export: its name, `.csv`. Pure. */
export const exportFilename = (schema: TableSchema, viewName?: string): string =>
  `${schema.table.name}${viewName ? ` - ${viewName}` : ''}.csv`.replaceAll(/[\\/\r\n"]/g, '_');

/** Where a chunk of CSV goes: kept in memory until it grows past `DIRECT_BYTES`, then into the bucket. */
class CsvSink {
  private parts: Buffer[] = [];
  private held = 0;
  private writer: ObjectWriter | undefined;

  /** `direct`: a small file may be answered itself (a request); else it always goes to the bucket (the worker). */
  constructor(
    private readonly objectKey: () => string,
    private readonly direct: boolean,
  ) {}

  async write(text: string): Promise<void> {
    const bytes = Buffer.from(text, 'utf8');
    if (this.writer) return this.writer.write(bytes);
    this.parts.push(bytes);
    this.held += bytes.length;
    if (this.direct && this.held <= DIRECT_BYTES) return;
    this.writer = new ObjectWriter(this.objectKey(), 'text/csv; charset=utf-8');
    const held = this.parts;
    this.parts = [];
    for (const part of held) await this.writer.write(part);
  }

  /** The CSV in memory, or the object it went to and its size. */
  async finish(): Promise<{ csv: string } | { key: string; bytes: number }> {
    if (!this.writer && this.direct) return { csv: Buffer.concat(this.parts).toString('utf8') };
    if (!this.writer) {
      this.writer = new ObjectWriter(this.objectKey(), 'text/csv; charset=utf-8');
      for (const part of this.parts) await this.writer.write(part);
    }
    await this.writer.finish();
    return { key: this.writer.key, bytes: this.writer.size };
  }

  async abort(): Promise<void> {
    await this.writer?.abort();
  }
}

/** What an export is: its view, its columns, its listing and its file's name. */
interface ExportPlan {
  viewId: string | undefined;
  view: View;
  columns: Field[];
  params: ListParams;
  filename: string;
}

/** The plan of an export of a table or of a view (`viewId`). An unknown view is a 404. Pure. */
const planExport = (schema: TableSchema, viewId: string | undefined): ExportPlan => {
  const view = viewId ? findView(schema, viewId) : defaultView(schema);
  const columns = viewFieldIds(schema, view, !viewId)
    .map((id) => schema.fields.find((f) => f.id === id))
    .filter((f) => f !== undefined);
  return {
    viewId,
    view,
    columns,
    params: {
      viewId: view.id,
      ignoreViewQuery: !viewId,
      cellFormat: 'text',
      fieldKeyType: 'id',
      collapsedGroupIds: [],
      take: Number.MAX_SAFE_INTEGER,
      skip: 0,
    },
    filename: exportFilename(schema, viewId ? view.name : undefined),
  };
};

/**
 * What an export's file is computed from, hashed: its shape — the columns (names, types, options),
 * the view (its filter, sort and order), the hour when its filter compares with relative dates —
 * and its data — the data versions of the table and of every table whose record titles its link
 * columns show.
 */
const exportSignature = async (
  schema: TableSchema,
  plan: ExportPlan,
  now: Date,
): Promise<{ shape: string; data: string }> => {
  const linked = plan.columns
    .filter((f) => f.type === 'link')
    .map((f) => linkOptionsOf(f.options).foreignTableId)
    .filter((id) => id !== '' && id !== schema.table.id);
  const tables = [schema.table.id, ...new Set(linked)];
  const versions = await readDataVersions(tables);
  const relative = plan.viewId && JSON.stringify(plan.view).includes('"mode"');
  const hash = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('base64url');
  return {
    shape: hash({
      columns: plan.columns.map((f) => [f.id, f.name, f.type, f.options]),
      view: plan.viewId ? plan.view : plan.view.id,
      hour: relative ? now.toISOString().slice(0, 13) : undefined,
    }),
    data: hash(tables.map((id) => [...(versions.get(id) ?? new Map())].sort())),
  };
};

/** The records' order: the view's order index when no filter or sort applies (keys only), else computed. */
const orderOf = async (ctx: ListContext, plan: ExportPlan): Promise<string[]> =>
  planListing(ctx.schema, plan.params).viewOrderOnly
    ? viewOrderPage(
        ctx.schema.table.id,
        plan.view.id,
        0,
        Number.MAX_SAFE_INTEGER,
        ctx.schema.table.autoNumber,
      )
    : (await allMatching(ctx, plan.params)).result.ids;

/**
 * Writes the header and the records `ids` into the sink, a chunk at a time (the next chunk read
 * while one is written). `goOn` is asked after each chunk with the rows written so far; false stops
 * the writing (answered: the rows written).
 */
const writeRows = async (
  ctx: ListContext,
  plan: ExportPlan,
  ids: readonly string[],
  sink: CsvSink,
  goOn: (rowsWritten: number) => boolean,
): Promise<{ complete: boolean; rows: number }> => {
  const { schema } = ctx;
  await sink.write(BOM + csvLine(plan.columns.map((f) => f.name)));
  const linkFields = new Set(plan.columns.filter((f) => f.type === 'link').map((f) => f.id));
  const read = (from: number) => {
    const some = ids.slice(from, from + CHUNK);
    return some.length
      ? getRecords(schema.table.id, some).then((found) => ({ ids: some, found }))
      : undefined;
  };
  let next = read(0);
  for (let i = 0; next; i += CHUNK) {
    const chunk = await next;
    next = read(i + CHUNK);
    const items = chunk.ids.map((id) => chunk.found.get(id)).filter((r): r is RecordItem => r !== undefined);
    const titles = await linkTitlesFor(schema, items, linkFields);
    let text = '';
    for (const item of items)
      text += csvLine(
        plan.columns.map((field) => {
          const value = cellOf(item, field);
          return value === undefined ? '' : String(renderCell(value, field, 'text', titles) ?? '');
        }),
      );
    await sink.write(text);
    const rows = Math.min(ids.length, i + CHUNK);
    if (next && !goOn(rows)) {
      await next.catch(() => undefined);
      return { complete: false, rows };
    }
  }
  return { complete: true, rows: ids.length };
};

const newObjectKey = (filename: string) => () =>
  `export/${randomBytes(24).toString('base64url')}/${filename}`;

/** Seconds to suggest before a retry: the rows at the rate measured (or a cautious guess), 5 s to 5 min. */
const retrySeconds = (rows: number, rowsPerSecond: number | undefined): number =>
  Math.min(300, Math.max(5, Math.ceil(rows / (rowsPerSecond ?? 2000) + 2)));

/**
 * The answer to an export handed to the worker earlier, if it still stands (else: export again).
 * It stands for an export of the same shape whose data has not changed since it began — or, for
 * `RETRY_MS` after it began, whatever changed: the caller's retries get the file they asked for
 * (the table as it was when the export began), even on a table written to all the time.
 */
const earlierAnswer = (
  earlier: ExportFile,
  signature: { shape: string; data: string },
  now: Date,
): ExportAnswer | undefined => {
  const since = (iso: string | undefined) => now.getTime() - Date.parse(iso ?? '');
  if (earlier.signature !== signature.shape) return undefined;
  if (earlier.dataSignature !== signature.data && !(since(earlier.startedTime) < RETRY_MS)) return undefined;
  if (earlier.state === 'writing') {
    if (since(earlier.startedTime) >= STALLED_MS) return undefined;
    throw new ServiceUnavailableError(
      `The export of ${earlier.rows.toLocaleString('en')} records is being written; retry for the file`,
      retrySeconds(earlier.rows, undefined),
    );
  }
  if (!(since(earlier.finishedTime) < REUSE_MS)) return undefined;
  if (earlier.state === 'failed')
    throw new UnprocessableError('export_too_large', earlier.failure ?? 'The export failed');
  return {
    location: downloadUrl(earlier.objectKey ?? '', earlier.filename) ?? '',
    filename: earlier.filename,
    bytes: earlier.bytes ?? 0,
  };
};

/**
 * Exports a table or a view (`viewId`) as CSV, in a request: the file answered or redirected to,
 * or, for one too large for the request's time, a 503 with `Retry-After` while the worker writes
 * it (see above). An unknown view is a 404 (as listing answers).
 */
export const exportCsv = async (ctx: ListContext, viewId: string | undefined): Promise<ExportAnswer> => {
  const { schema } = ctx;
  const plan = planExport(schema, viewId);
  const now = new Date();
  const [signature, earlier] = await Promise.all([
    exportSignature(schema, plan, now),
    readExportFile(schema.table.id, viewId, ctx.userId),
  ]);
  const reused = earlier && earlierAnswer(earlier, signature, now);
  if (reused) return reused;
  const ids = await orderOf(ctx, plan);
  const sink = new CsvSink(newObjectKey(plan.filename), true);
  const started = performance.now();
  let rate: number | undefined;
  // after each chunk: would the rest, at the rate so far, still finish in time?
  const inTime = (rows: number) => {
    rate = rows / Math.max(0.001, (performance.now() - started) / 1000);
    return ((ids.length - rows) / rate) * 1000 + FINISH_MS < remainingMs();
  };
  try {
    const written =
      remainingMs() > FINISH_MS * 2
        ? await writeRows(ctx, plan, ids, sink, inTime)
        : { complete: false, rows: 0 };
    if (!written.complete) {
      await sink.abort();
      return await handOver(ctx, plan, signature, ids.length, rate);
    }
    const done = await sink.finish();
    if ('csv' in done) return { csv: done.csv, filename: plan.filename };
    return {
      location: downloadUrl(done.key, plan.filename) ?? '',
      filename: plan.filename,
      bytes: done.bytes,
    };
  } catch (error) {
    await sink.abort();
    throw error;
  }
};

/** Hands an export to the worker: the export and its job in one write, then the job sent; answers 503. */
const handOver = async (
  ctx: ListContext,
  plan: ExportPlan,
  signature: { shape: string; data: string },
  rows: number,
  rate: number | undefined,
): Promise<never> => {
  const now = new Date();
  const file = {
    tableId: ctx.schema.table.id,
    ...(plan.viewId ? { viewId: plan.viewId } : {}),
    userId: ctx.userId,
    exportId: randomUUID(),
    signature: signature.shape,
    dataSignature: signature.data,
    filename: plan.filename,
    rows,
  };
  const job = { kind: 'export' as const, resourceId: exportJobId(file) };
  await transact(
    [startExportOp(file, now), purgeJobOp(job, { baseId: ctx.schema.table.baseId, userId: ctx.userId }, now)],
    () => new ConflictError('The export changed at the same time; retry'),
  );
  await (await purgeQueue()).send(job);
  throw new ServiceUnavailableError(
    `The export of ${rows.toLocaleString('en')} records takes longer than a request may: it is being written in the background; retry for the file`,
    retrySeconds(rows, rate),
  );
};

/**
 * The worker's part (job kind `export`): writes a handed-over export to the bucket and records
 * the file (or why there is none). Always done in one run: an export that outlasts the run's
 * budget is given up and answered 422 (a second run would start from the beginning again).
 */
export const runExportJob = async (resourceId: string, budget: () => boolean): Promise<true> => {
  const which = exportOfJobId(resourceId);
  const file = which && (await readExportFile(which.tableId, which.viewId, which.userId));
  if (file?.state !== 'writing') return true;
  const fail = (failure: string) => finishExportFile(file, { failure }, new Date()).then(() => true as const);
  let schema: TableSchema;
  let plan: ExportPlan;
  try {
    schema = await loadSchema(file.tableId);
    plan = planExport(schema, file.viewId);
  } catch (error) {
    if (error instanceof NotFoundError) return fail(`The export's table or view is gone: ${error.message}`);
    throw error;
  }
  const ctx: ListContext = { schema, userId: file.userId, canUpdate: false, canDelete: false };
  const ids = await orderOf(ctx, plan);
  const sink = new CsvSink(newObjectKey(plan.filename), false);
  try {
    const written = await writeRows(ctx, plan, ids, sink, budget);
    if (!written.complete) {
      await sink.abort();
      return fail(
        `The export of ${ids.length.toLocaleString('en')} records did not finish in the worker's time (${written.rows.toLocaleString('en')} written): export a view with fewer records or fields`,
      );
    }
    const done = await sink.finish();
    if (!('key' in done)) throw new Error('a worker export is always written to the bucket');
    const recorded = await finishExportFile(file, { objectKey: done.key, bytes: done.bytes }, new Date());
    // a newer export replaced this one while it was written: its file is of no use
    if (!recorded) await deleteObjects([done.key]);
    return true;
  } catch (error) {
    await sink.abort();
    throw error;
  }
};
