/**
 * Paste onto a grid selection (`…/selection/paste`, teable-routes.md "Selection"): the content is
 * written from the selection's top-left cell as a typecast write, computed fields skipped. Rows
 * past the last record become new records (the caller needs `record|create` too), columns past
 * the last visible field new singleLineText fields (`field|create`); both rights are checked
 * before anything is written.
 *
 * All or nothing, by compensation where the grid grows: the new fields are created first (each
 * one schema write), then the new records in one write, then the existing records updated in
 * one write. Every check that needs no write (ranges, content, rights, sizes) runs before the
 * first write; should a later write fail, what the earlier ones created is deleted again before
 * the error is answered.
 */
import { checkAccess, type Principal } from '#shared/auth/permission.ts';
import type { Located } from '#shared/auth/resources.ts';
import type { Scope } from '#shared/auth/scopes.ts';
import { logger } from '#shared/core/logger.ts';
import type { Field } from '#shared/fields/field-types.ts';
import { pastedRows, pasteStart, planPaste } from '#shared/listing/clipboard.ts';
import type { PasteRequest } from '#shared/listing/paste.ts';
import { gridOf } from '#shared/listing/selection.ts';
import { recordRights } from '#shared/records/context.ts';
import { createRecords } from '#shared/records/create.ts';
import { deleteRecords } from '#shared/records/delete.ts';
import { updateRecords } from '#shared/records/update.ts';
import { loadSchema, type TableSchema } from '#shared/schema/schema.ts';
import { createField, deleteFields } from './fields.ts';

/** Pastes `content` onto the selection; answers the block written, `[[col0, row0], [col1, row1]]`. */
export const pasteSelection = async (
  principal: Principal,
  located: Located,
  schema: TableSchema,
  request: PasteRequest,
): Promise<{ ranges: [[number, number], [number, number]] }> => {
  const ctx = { schema, userId: principal.userId, ...recordRights(principal, located) };
  const grid = await gridOf(ctx, request.params);
  const start = pasteStart(request.ranges, request.type);
  const plan = planPaste({ columns: grid.columns.length, rows: grid.rows.length }, start, request.content);
  const growth: Scope[] = [
    ...(plan.newRows > 0 ? (['record|create'] as const) : []),
    ...(plan.newColumns > 0 ? (['field|create'] as const) : []),
  ];
  if (growth.length) checkAccess({ principal, resource: located, role: located.role, actions: growth });
  const [col, row] = start;
  // Rows already on the grid are updated, the rest created; each part is within the record limit
  // (`readPasteContent` takes at most `MAX_PASTE_ROWS`).
  const existing = Math.min(request.content.length, grid.rows.length - row);

  // New columns first: the records' writes then see the fields they fill. Then the new records,
  // then the existing ones: should a later write fail, the earlier ones are undone (the records
  // created deleted, the fields created deleted) and the error answered, so nothing is left.
  let current = schema;
  const added: Field[] = [];
  let created: string[] = [];
  try {
    for (let i = 0; i < plan.newColumns; i++) {
      added.push(await createField(current, { type: 'singleLineText' }));
      current = await loadSchema(schema.table.id);
    }
    const rows = pastedRows(request.content, [...grid.columns.slice(col), ...added]);
    const updates = rows
      .slice(0, existing)
      .map((fields, i) => ({ id: grid.rows[row + i] as string, fields }))
      .filter((r) => Object.keys(r.fields).length > 0);
    const creates = rows.slice(existing).map((fields) => ({ fields }));
    if (creates.length) {
      const items = await createRecords(principal, located, current, {
        records: creates,
        fieldKeyType: 'id',
        typecast: true,
      });
      created = items.map((item) => item.id);
    }
    // The create may have stored new select choices: the update reads the schema as it now is.
    if (updates.length)
      await updateRecords(principal, located, created.length ? await loadSchema(schema.table.id) : current, {
        records: updates,
        fieldKeyType: 'id',
        typecast: true,
      });
  } catch (error) {
    await undoGrowth(schema.table.id, created, added).catch((undoError) =>
      logger.error('paste: undoing the grown grid failed', {
        error: undoError,
        created,
        added: added.map((f) => f.id),
      }),
    );
    throw error;
  }
  return { ranges: plan.ranges };
};

/** Undoes a paste's growth: the records it created, then the fields it created. */
const undoGrowth = async (tableId: string, created: readonly string[], added: readonly Field[]) => {
  if (created.length) await deleteRecords(await loadSchema(tableId), created);
  if (added.length)
    await deleteFields(
      await loadSchema(tableId),
      added.map((f) => f.id),
    );
};
