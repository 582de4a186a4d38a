import { ConflictError } from '#shared/core/errors.ts';
import { bumpDataVersions, updateItem } from '#shared/db/client.ts';
import { propagatedStamp, queryRecordParts, recordKey } from '#shared/entities/records.ts';
import type { ChoiceChanges } from '#shared/fields/define.ts';
import type { Field } from '#shared/fields/field-types.ts';

type Cell = string | string[] | undefined;

/** A select cell after choice renames and removals (names renamed, removed names dropped). Pure. */
export const renameChoicesInCell = (cell: unknown, changes: ChoiceChanges): Cell => {
  const renamed = new Map(changes.renamed.map((r) => [r.from, r.to]));
  const removed = new Set(changes.removed);
  const map = (name: string): string | undefined =>
    removed.has(name) ? undefined : (renamed.get(name) ?? name);
  if (typeof cell === 'string') return map(cell);
  if (!Array.isArray(cell)) return undefined;
  const names = [
    ...new Set(cell.map((n) => (typeof n === 'string' ? map(n) : undefined)).filter((n) => n !== undefined)),
  ];
  return names.length ? names : undefined;
};

const PARALLEL = 8;

/**
 * Rewrites the stored cells of a select field whose choices were renamed or removed (cells hold
 * choice names, so they would otherwise name choices that no longer exist). Each record changes
 * on the condition that its cell is still the one read: a cell written meanwhile is left alone.
 * The record's version (ETag) moves; its lastModifiedTime does not (nobody edited the record).
 */
export const rewriteChoiceCells = async (tableId: string, field: Field, changes: ChoiceChanges) => {
  if (changes.renamed.length === 0 && changes.removed.length === 0) return;
  const items = await queryRecordParts(tableId, [field.id]);
  const work = items.flatMap((item) => {
    const before = item[field.id];
    if (before === undefined) return [];
    const after = renameChoicesInCell(before, changes);
    return JSON.stringify(after) === JSON.stringify(before) ? [] : [{ item, before, after }];
  });
  const skipped = new ConflictError('The cell changed meanwhile');
  const rewrites = work.length;
  const stamp = propagatedStamp();
  while (work.length) {
    await Promise.all(
      work.splice(0, PARALLEL).map(({ item, before, after }) =>
        updateItem(
          {
            key: recordKey(tableId, item.id),
            // a renamed or removed choice: the change log marks the rewrite computed (txp)
            update: `SET ${after === undefined ? '' : '#f = :after, '}txp = :txp${stamp.tx === undefined ? '' : ', tx = :tx'}${stamp.by === undefined ? '' : ', #by = :by'}${after === undefined ? ' REMOVE #f' : ''} ADD version :one`,
            condition: '#f = :before',
            names: { '#f': field.id, ...(stamp.by === undefined ? {} : { '#by': 'by' }) },
            values: {
              ':before': before,
              ':one': 1,
              ':txp': true,
              ...(stamp.tx === undefined ? {} : { ':tx': stamp.tx }),
              ...(stamp.by === undefined ? {} : { ':by': stamp.by }),
              ...(after === undefined ? {} : { ':after': after }),
            },
          },
          () => skipped,
          'NONE',
        ).catch((error) => {
          if (error !== skipped) throw error;
        }),
      ),
    );
  }
  // The cells were rewritten one by one, outside a transaction: the data version moves after them.
  if (rewrites > 0) await bumpDataVersions([tableId]);
};
