import { ValidationError } from '#shared/core/errors.ts';
import {
  getRecordParts,
  getRecords,
  keepRecordsForRequest,
  queryRecordParts,
  type RecordItem,
  type RecordPart,
  recordReadEarlier,
} from '#shared/entities/records.ts';
import type { Field, ReadContext } from '#shared/fields/field-types.ts';
import { fieldKind } from '#shared/fields/registry.ts';
import { linkOptions, singleHere, singleThere } from '#shared/schema/link-fields.ts';
import { loadForeignSchema, primaryField, type TableSchema } from '#shared/schema/schema.ts';
import { isCellAttribute } from './limits.ts';
import { cellOf, NO_LINKS } from './model.ts';

const idsOf = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];

/** One record's link-relevant write: its cells after the write, its item before (updates). */
export interface LinkWrite {
  recordId: string;
  before: RecordItem | undefined;
  cells: Map<string, unknown>;
  /** Titles to resolve (typecast), per link field id. */
  titles?: Map<string, string[]>;
}

/**
 * A record of any table whose link cells a write changes as the other side of its links (the
 * symmetric cell of a foreign record, or the cell of a record that loses a one-to-x link):
 * `item` is its state after the write, `original` as read, `changed` the cells that differ.
 */
export interface Touched {
  tableId: string;
  item: RecordItem;
  original: RecordItem;
  changed: Set<string>;
}

/** The records of other tables (or this one) whose link cells follow a write's links. */
export interface LinkResolution {
  touched: Touched[];
}

const MAX_TITLE_SCAN = 100_000;

/** What a record's title needs besides its primary cell: the envelope a system primary field reads. */
const TITLE_ATTRIBUTES = ['id', 'autoNumber', 'createdTime', 'lastModifiedTime', 'cb', 'mb'];

/**
 * The records of a foreign table by title (its primary field's text): `find` matches exactly,
 * then ignoring case; `ids` holds every record id. One read of the table's primary column.
 */
export const titleIndex = async (foreign: TableSchema) => {
  const primary = primaryField(foreign);
  const items = await queryRecordParts(foreign.table.id, [...TITLE_ATTRIBUTES, primary.id]);
  if (items.length > MAX_TITLE_SCAN)
    throw new ValidationError('Too many foreign records to match titles; write record ids');
  const kind = fieldKind(primary.type);
  const exact = new Map<string, string>();
  const folded = new Map<string, string>();
  for (const item of items) {
    const v = cellOf(item, primary);
    const text = v === undefined ? '' : kind.toText(v, primary, NO_LINKS);
    const id = item.id;
    if (!exact.has(text)) exact.set(text, id);
    if (!folded.has(text.toLowerCase())) folded.set(text.toLowerCase(), id);
  }
  return {
    ids: new Set(items.map((i) => i.id)),
    find: (title: string): string | undefined => exact.get(title) ?? folded.get(title.toLowerCase()),
  };
};

/** Resolves titles to ids by the foreign primary field's text (exact, then ignoring case). */
const resolveTitles = async (foreign: TableSchema, titles: string[]): Promise<string[]> => {
  const index = await titleIndex(foreign);
  return titles.flatMap((title) => index.find(title) ?? []);
};

/**
 * For a batch of record writes: resolves link titles (typecast), checks that every linked id is
 * a record of the foreign table (a 400 naming the field otherwise), and builds the steps that
 * write the other side: the symmetric cells of foreign records, and, where a foreign record may
 * be linked from one record only, the cell of the record that loses it. Every touched record is
 * written on the condition that its version did not change since it was read.
 */
export const resolveLinks = async (
  schema: TableSchema,
  fields: readonly Field[],
  writes: LinkWrite[],
): Promise<LinkResolution> => {
  const tableId = schema.table.id;
  const linkFields = fields.filter((f) => f.type === 'link' && writes.some((w) => w.cells.has(f.id)));
  if (linkFields.length === 0) return { touched: [] };
  // Touched records of any table, keyed `table/record`, loaded once; changes apply to these copies.
  const working = new Map<string, RecordItem>();
  const changedKeys = new Set<string>();
  const ref = (t: string, r: string) => `${t}/${r}`;
  const inBatch = new Map(writes.map((w) => [w.recordId, w]));
  // Fields by id of every table touched, to name a cell that the other side would make too large.
  const fieldsById = new Map(fields.map((f) => [f.id, f]));

  for (const field of linkFields) {
    const opts = linkOptions(field);
    const foreign = await loadForeignSchema(opts.foreignTableId);
    for (const f of foreign.fields) if (!fieldsById.has(f.id)) fieldsById.set(f.id, f);
    for (const w of writes) {
      if (!w.cells.has(field.id)) continue;
      let ids = idsOf(w.cells.get(field.id));
      const titles = w.titles?.get(field.id);
      if (titles?.length) ids = [...new Set([...ids, ...(await resolveTitles(foreign, titles))])];
      if (singleHere(opts.relationship) && ids.length > 1)
        throw new ValidationError(`Field "${field.name}" (${field.id}) links at most one record`);
      w.cells.set(field.id, ids.length ? ids : undefined);
    }
    // Existence of every linked id, and the current state of the foreign records.
    const wanted = [
      ...new Set(writes.flatMap((w) => [...idsOf(w.cells.get(field.id)), ...idsOf(w.before?.[field.id])])),
    ];
    const loaded = await getRecords(opts.foreignTableId, wanted);
    for (const w of writes) {
      for (const id of idsOf(w.cells.get(field.id))) {
        if (!loaded.has(id))
          throw new ValidationError(
            `Field "${field.name}" (${field.id}): record ${id} is not in table ${opts.foreignTableId}`,
          );
      }
    }
    // Another table's records keep their titles through this write: the answer reuses them.
    if (opts.foreignTableId !== tableId) keepRecordsForRequest(opts.foreignTableId, wanted, loaded);
    for (const id of wanted) {
      const item = loaded.get(id);
      if (item && !working.has(ref(opts.foreignTableId, id))) working.set(ref(opts.foreignTableId, id), item);
    }
    if (opts.isOneWay || !opts.symmetricFieldId) {
      if (singleThere(opts.relationship)) await assertLinkedOnce(tableId, field, writes, inBatch);
      continue;
    }
    const sym = opts.symmetricFieldId;

    for (const w of writes) {
      if (!w.cells.has(field.id)) continue;
      const before = idsOf(w.before?.[field.id]);
      const after = idsOf(w.cells.get(field.id));
      for (const gone of before.filter((id) => !after.includes(id))) {
        const f = working.get(ref(opts.foreignTableId, gone));
        if (!f) continue;
        setCell(
          f,
          sym,
          idsOf(f[sym]).filter((x) => x !== w.recordId),
        );
        changedKeys.add(ref(opts.foreignTableId, gone));
      }
      for (const added of after.filter((id) => !before.includes(id))) {
        const f = working.get(ref(opts.foreignTableId, added));
        // Every added id was read above, or the write stopped at its 400.
        if (!f) continue;
        const holders = idsOf(f[sym]).filter((x) => x !== w.recordId);
        if (singleThere(opts.relationship)) {
          // The foreign record may be linked from one record only (Teable's rule): a holder
          // outside the batch, or one the batch keeps it in, makes the write a 400.
          if (holders.some((holder) => keepsLink(inBatch.get(holder), field.id, added)))
            throw linkedElsewhere(field, added, opts.relationship);
          setCell(f, sym, [w.recordId]);
        } else setCell(f, sym, [...holders, w.recordId]);
        changedKeys.add(ref(opts.foreignTableId, added));
      }
    }
  }
  const touched: Touched[] = [];
  for (const key of changedKeys) {
    const item = working.get(key);
    if (!item) continue; // every changed key was read into `working` first
    const [t, r] = key.split('/') as [string, string];
    const original = originals.get(item) ?? item;
    if (t === tableId && inBatch.has(r)) {
      // A self-link's other side on a record of the batch: one write per item, so it joins that
      // record's own cells (a cell the caller wrote explicitly keeps the caller's value).
      const w = inBatch.get(r) as LinkWrite;
      for (const f of fields)
        if (
          f.type === 'link' &&
          !w.cells.has(f.id) &&
          idsOf(item[f.id]).join() !== idsOf(original[f.id]).join()
        )
          w.cells.set(f.id, idsOf(item[f.id]).length ? idsOf(item[f.id]) : undefined);
      continue;
    }
    const changed = new Set(
      Object.keys({ ...item, ...original }).filter(
        (name) => isCellAttribute(name) && JSON.stringify(item[name]) !== JSON.stringify(original[name]),
      ),
    );
    touched.push({ tableId: t, item, original, changed });
  }
  return { touched };
};

/**
 * Whether a record still links `foreignId` through the field after the write: a record outside
 * the batch (undefined) as stored, a record of the batch as it writes the cell.
 */
const keepsLink = (write: LinkWrite | undefined, fieldId: string, foreignId: string): boolean =>
  !write ||
  idsOf(write.cells.has(fieldId) ? write.cells.get(fieldId) : write.before?.[fieldId]).includes(foreignId);

const linkedElsewhere = (field: Field, foreignId: string, relationship: string) =>
  new ValidationError(
    `Field "${field.name}" (${field.id}): record ${foreignId} is linked from another record already; ` +
      `a ${relationship} link links a record from one record only`,
  );

/**
 * A one-way oneOne / oneMany link keeps no other side to tell who links a foreign record, so the
 * rule is checked against the table's cells of the field (one projected read, only when the
 * batch adds a link): a record added by two records of the batch, or by one while another keeps
 * it, is a 400.
 */
const assertLinkedOnce = async (
  tableId: string,
  field: Field,
  writes: readonly LinkWrite[],
  inBatch: ReadonlyMap<string, LinkWrite>,
): Promise<void> => {
  const addedBy = new Map<string, string>();
  for (const w of writes) {
    if (!w.cells.has(field.id)) continue;
    const before = idsOf(w.before?.[field.id]);
    for (const id of idsOf(w.cells.get(field.id))) {
      if (before.includes(id)) continue;
      if (addedBy.has(id)) throw linkedElsewhere(field, id, linkOptions(field).relationship);
      addedBy.set(id, w.recordId);
    }
  }
  if (addedBy.size === 0) return;
  const holders = [
    ...(await queryRecordParts(tableId, [field.id])).filter((r) => !inBatch.has(r.id)),
    ...[...inBatch.values()].map((w) => ({
      id: w.recordId,
      [field.id]: w.cells.has(field.id) ? w.cells.get(field.id) : w.before?.[field.id],
    })),
  ];
  for (const holder of holders)
    for (const id of idsOf(holder[field.id]))
      if (addedBy.has(id) && addedBy.get(id) !== holder.id)
        throw linkedElsewhere(field, id, linkOptions(field).relationship);
};

const originals = new WeakMap<RecordItem, RecordItem>();

const setCell = (item: RecordItem, fieldId: string, ids: string[]) => {
  if (!originals.has(item)) originals.set(item, structuredClone(item));
  if (ids.length) item[fieldId] = ids;
  else delete item[fieldId];
};

/** Primary field types whose value a write of a link's other side changes. */
const CHANGES_WITH_WRITES = new Set(['lastModifiedTime', 'lastModifiedBy']);

/**
 * Titles of the records linked from `items` through the schema's link fields: one batched read
 * per foreign table of only the attributes its primary field needs.
 */
export const linkTitlesFor = async (
  schema: TableSchema,
  items: readonly RecordPart[],
  fieldIds?: ReadonlySet<string>,
): Promise<ReadContext> => {
  const linkFields = schema.fields.filter((f) => f.type === 'link' && (!fieldIds || fieldIds.has(f.id)));
  if (linkFields.length === 0 || items.length === 0) return NO_LINKS;
  const titles = new Map<string, Map<string, string>>();
  await Promise.all(
    linkFields.map(async (field) => {
      const opts = linkOptions(field);
      const ids = [...new Set(items.flatMap((i) => idsOf(i[field.id])))];
      const map = new Map<string, string>();
      titles.set(field.id, map);
      if (ids.length === 0) return;
      const foreign = await loadForeignSchema(opts.foreignTableId);
      const primary = primaryField(foreign);
      // Records a link write of this request read before writing, unless their title may have
      // changed by it (a record of this table, a primary field that follows modification).
      const reusable = opts.foreignTableId !== schema.table.id && !CHANGES_WITH_WRITES.has(primary.type);
      const known = new Map<string, RecordPart>();
      for (const id of ids) {
        const item = reusable ? recordReadEarlier(opts.foreignTableId, id) : undefined;
        if (item) known.set(id, item);
      }
      const toRead = ids.filter((id) => !known.has(id));
      const loaded = toRead.length
        ? await getRecordParts(opts.foreignTableId, toRead, [...TITLE_ATTRIBUTES, primary.id])
        : undefined;
      const kind = fieldKind(primary.type);
      for (const id of ids) {
        const item = known.get(id) ?? loaded?.get(id);
        if (!item) continue;
        const v = cellOf(item, primary);
        map.set(id, v === undefined ? '' : kind.toText(v, primary, NO_LINKS));
      }
    }),
  );
  return { linkTitle: (fieldId, recordId) => titles.get(fieldId)?.get(recordId) };
};
