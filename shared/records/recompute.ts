/**
 * Recomputing a table's formula cells after its schema changed (computed.md 6): a formula field
 * created (backfill of every record), its expression changed, or a field it reads changed or
 * deleted. The steps join the schema change's own steps in one journaled write, so the field
 * and its values land together or not at all.
 */

import { queryAll } from '#shared/db/client.ts';
import type { Step } from '#shared/db/commit.ts';
import { keys } from '#shared/db/keys.ts';
import type { TableSchema } from '#shared/schema/schema.ts';
import { isEmptyCell } from './cells.ts';
import { computeFormulas, tableFormulas } from './computed.ts';
import type { RecordItem } from './model.ts';

/**
 * The steps that bring every record's formula cells up to date with `schema` (the schema as it
 * will be once the change lands). Each record is written on the condition that it did not
 * change since it was read (a concurrent write fails the whole change, which the caller retries);
 * its version (ETag) moves, its lastModifiedTime does not (nobody edited the record).
 */
export const recomputeSteps = async (schema: TableSchema, now: Date): Promise<Step[]> => {
  const formulas = tableFormulas(schema);
  if (formulas.ordered.length === 0) return [];
  const tableId = schema.table.id;
  const items = (await queryAll(keys.recordsOf(tableId))) as RecordItem[];
  const originals = new Map(items.map((item) => [item.id, structuredClone(item)]));
  const changes = await computeFormulas(schema, items, now, formulas);
  const steps: Step[] = [];
  for (const [recordId, cells] of changes) {
    const original = originals.get(recordId) as RecordItem;
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':v': original.version, ':one': 1 };
    const sets = ['version = version + :one'];
    const removes: string[] = [];
    let i = 0;
    for (const [fieldId, value] of cells) {
      names[`#f${i}`] = fieldId;
      if (isEmptyCell(value)) removes.push(`#f${i}`);
      else {
        values[`:f${i}`] = value;
        sets.push(`#f${i} = :f${i}`);
      }
      i++;
    }
    steps.push({
      op: {
        update: {
          key: keys.record(tableId, recordId),
          update: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
          condition: 'version = :v',
          names,
          values,
        },
      },
      undo: { put: original },
    });
  }
  return steps;
};
