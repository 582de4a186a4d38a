import type { Principal } from '#shared/auth/permission.ts';
import type { Located } from '#shared/auth/resources.ts';
import { InternalServerError } from '#shared/core/errors.ts';
import type { RecordItem } from '#shared/entities/records.ts';
import { fieldKind } from '#shared/fields/registry.ts';
import { linkOptions, singleThere } from '#shared/schema/link-fields.ts';
import type { TableSchema } from '#shared/schema/schema.ts';
import { createRecords } from './create.ts';
import type { Placement } from './placement.ts';
import { loadRecords } from './update.ts';

/**
 * Copies every non-computed cell of a record into a new record (new id, autoNumber, times and
 * creator), through the create path: links are written on both sides, unique fields refuse the
 * copy (400), and the copy goes where `order` says or to the end. Empty cells stay empty (no
 * `defaultValue`). A oneOne/oneMany link cell is left empty in the copy: its foreign records may
 * be linked from one record only, so copying it would take them away from the source.
 */
export const duplicateRecord = async (
  principal: Principal,
  located: Located,
  schema: TableSchema,
  recordId: string,
  order: Placement | undefined,
): Promise<RecordItem> => {
  const [source] = await loadRecords(located.id, [recordId]);
  const fields: Record<string, unknown> = {};
  for (const field of schema.fields) {
    if (field.isComputed || fieldKind(field.type).isComputed) continue;
    if (field.type === 'link' && singleThere(linkOptions(field).relationship)) continue;
    const value = source?.[field.id];
    if (value !== undefined) fields[field.id] = value;
  }
  const [copy] = await createRecords(principal, located, schema, {
    records: [{ fields }],
    fieldKeyType: 'id',
    typecast: false,
    order,
    keepEmpty: true,
  });
  if (!copy) throw new InternalServerError(); // one record written, one answered
  return copy;
};
