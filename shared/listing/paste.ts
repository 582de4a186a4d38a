/**
 * The preview of a paste (`…/selection/temporaryPaste`): the values a paste of `content` from a
 * selection's top-left cell would write, typecast as the record write path typecasts them, link
 * titles resolved, nothing written. One entry per pasted row, its cells keyed by field id (as
 * Teable's client reads them); computed fields, empty cells and columns past the grid's last are
 * left out (a preview creates no field).
 */
import type { Principal } from '#shared/auth/permission.ts';
import type { Located } from '#shared/auth/resources.ts';
import { newRecordItem } from '#shared/entities/records.ts';
import { isEmptyCell } from '#shared/fields/kind-helpers.ts';
import { newId } from '#shared/ids.ts';
import { convertWrite } from '#shared/records/convert-write.ts';
import { linkTitlesFor, resolveLinks } from '#shared/records/links.ts';
import { renderCell } from '#shared/records/model.ts';
import type { TableSchema } from '#shared/schema/schema.ts';
import { assertStartInGrid, pastedRows, pasteStart } from './clipboard.ts';
import type { ListParams } from './params.ts';
import { gridColumns, type RangeType } from './selection.ts';

export interface PasteRequest {
  params: ListParams;
  ranges: [number, number][];
  type: RangeType;
  content: unknown[][];
}

/** What a paste of `content` would write, row by row, as the list renders cells (JSON, by field id). */
export const previewPaste = async (
  principal: Principal,
  located: Located,
  schema: TableSchema,
  request: Omit<PasteRequest, 'type'>,
): Promise<{ fields: Record<string, unknown> }[]> => {
  const columns = gridColumns(schema, request.params);
  // Only the column counts: a preview writes no record, so any row may start it.
  const [col] = pasteStart(request.ranges, undefined);
  assertStartInGrid({ columns: columns.length, rows: 0 }, [col, 0]);
  const records = pastedRows(request.content, columns.slice(col)).map((fields) => ({ fields }));
  const { ctx, converted, fields } = await convertWrite(principal, located, schema, records, {
    fieldKeyType: 'id',
    typecast: true,
  });
  const ids = records.map(() => newId('record'));
  await resolveLinks(
    schema,
    fields,
    ids.map((recordId, i) => ({
      recordId,
      before: undefined,
      cells: converted.changes[i] as Map<string, unknown>,
      titles: converted.linkTitles[i],
    })),
  );
  const now = ctx.now.toISOString();
  const items = ids.map((id, i) =>
    newRecordItem(schema.table.id, {
      id,
      autoNumber: 0,
      cells: converted.changes[i] ?? new Map(),
      user: ctx.user,
      now,
    }),
  );
  const titles = await linkTitlesFor(schema, items);
  return converted.changes.map((cells) => {
    const out: Record<string, unknown> = {};
    for (const [fieldId, value] of cells) {
      const field = fields.find((f) => f.id === fieldId);
      if (!field || value === undefined || isEmptyCell(value)) continue;
      const rendered = renderCell(value, field, 'json', titles);
      if (!isEmptyCell(rendered)) out[fieldId] = rendered;
    }
    return { fields: out };
  });
};
