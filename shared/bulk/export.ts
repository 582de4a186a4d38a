/**
 * `GET /export/{tableId}` (data-flow.md 7, Teable's `exportCsvFromTable`): a table, or a view of it
 * (`viewId`: its filter, sort and visible fields, in its column order), as CSV — UTF-8 with BOM,
 * RFC 4180, each cell in its text form (as `cellFormat=text` answers it). Without a view: every
 * record in the default view's order, every field in its column order, hidden ones included.
 *
 * Memory stays bounded whatever the table's size: the order comes from the view's order index
 * when no filter or sort applies (keys only), else is computed once from the queried fields only
 * (`allMatching`, as the row count does); then the records are read and written a chunk at a time
 * (the next chunk read while one is written). A file of up to `DIRECT_BYTES` is answered directly;
 * a larger one is streamed into the bucket as it is written (a multipart upload: one 5 MB part in
 * memory at a time) and answered with a redirect (302) to a download URL valid 15 minutes. Export
 * files are removed by the bucket's lifecycle a day later. It all happens within the request: an
 * export that cannot finish within the time limit answers 503 and leaves no file (the parts are
 * given up), never a cut one.
 */
import { randomBytes } from 'node:crypto';
import { getRecords, type RecordItem } from '#shared/entities/records.ts';
import { allMatching, type ListContext } from '#shared/listing/list.ts';
import type { ListParams } from '#shared/listing/params.ts';
import { planListing, viewFieldIds } from '#shared/listing/resolve.ts';
import { viewOrderPage } from '#shared/listing/view-order.ts';
import { linkTitlesFor } from '#shared/records/links.ts';
import { cellOf, renderCell } from '#shared/records/model.ts';
import { defaultView, type TableSchema } from '#shared/schema/schema.ts';
import { findView } from '#shared/schema/views.ts';
import { downloadUrl } from '#shared/storage/download.ts';
import { ObjectWriter } from '#shared/storage/objects.ts';
import { BOM, csvLine } from './csv.ts';

/** Largest CSV answered in the response itself (Lambda answers at most 6 MB). */
export const DIRECT_BYTES = 5 * 1024 * 1024;
/** Records read and written at a time (20 BatchGetItem calls in parallel). */
const CHUNK = 2000;

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

  constructor(private readonly objectKey: () => string) {}

  async write(text: string): Promise<void> {
    const bytes = Buffer.from(text, 'utf8');
    if (this.writer) return this.writer.write(bytes);
    this.parts.push(bytes);
    this.held += bytes.length;
    if (this.held <= DIRECT_BYTES) return;
    this.writer = new ObjectWriter(this.objectKey(), 'text/csv; charset=utf-8');
    const held = this.parts;
    this.parts = [];
    for (const part of held) await this.writer.write(part);
  }

  /** The CSV in memory, or the object it went to and its size. */
  async finish(): Promise<{ csv: string } | { key: string; bytes: number }> {
    if (!this.writer) return { csv: Buffer.concat(this.parts).toString('utf8') };
    await this.writer.finish();
    return { key: this.writer.key, bytes: this.writer.size };
  }

  async abort(): Promise<void> {
    await this.writer?.abort();
  }
}

/** Exports a table or a view (`viewId`) as CSV. An unknown view is a 404 (as listing answers). */
export const exportCsv = async (ctx: ListContext, viewId: string | undefined): Promise<ExportAnswer> => {
  const { schema } = ctx;
  const view = viewId ? findView(schema, viewId) : defaultView(schema);
  const columns = viewFieldIds(schema, view, !viewId)
    .map((id) => schema.fields.find((f) => f.id === id))
    .filter((f) => f !== undefined);
  const params: ListParams = {
    viewId: view.id,
    ignoreViewQuery: !viewId,
    cellFormat: 'text',
    fieldKeyType: 'id',
    collapsedGroupIds: [],
    take: Number.MAX_SAFE_INTEGER,
    skip: 0,
  };
  // no filter, sort or search: the view's own order, from its order index (keys only, in parallel)
  const ids = planListing(schema, params).viewOrderOnly
    ? await viewOrderPage(schema.table.id, view.id, 0, Number.MAX_SAFE_INTEGER, schema.table.autoNumber)
    : (await allMatching(ctx, params)).result.ids;
  const filename = exportFilename(schema, viewId ? view.name : undefined);
  const sink = new CsvSink(() => `export/${randomBytes(24).toString('base64url')}/${filename}`);
  try {
    await sink.write(BOM + csvLine(columns.map((f) => f.name)));
    const linkFields = new Set(columns.filter((f) => f.type === 'link').map((f) => f.id));
    // the next chunk is read while this one is written (two chunks in memory at most)
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
      const items = chunk.ids
        .map((id) => chunk.found.get(id))
        .filter((r): r is RecordItem => r !== undefined);
      const titles = await linkTitlesFor(schema, items, linkFields);
      let text = '';
      for (const item of items)
        text += csvLine(
          columns.map((field) => {
            const value = cellOf(item, field);
            return value === undefined ? '' : String(renderCell(value, field, 'text', titles) ?? '');
          }),
        );
      await sink.write(text);
    }
    const done = await sink.finish();
    if ('csv' in done) return { csv: done.csv, filename };
    return { location: downloadUrl(done.key, filename) ?? '', filename, bytes: done.bytes };
  } catch (error) {
    await sink.abort();
    throw error;
  }
};
