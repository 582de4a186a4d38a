import type { Principal } from '#shared/auth/permission.ts';
import type { Located } from '#shared/auth/resources.ts';
import type { FieldKeyType, TableSchema } from '#shared/schema/schema.ts';
import { convertRecords } from './cells.ts';
import { writeContextFor } from './context.ts';

/**
 * The common start of every record write: the write context (caller, collaborators), the written
 * values converted per field, and the table's fields as they will be after the write (with the
 * select choices typecast added).
 */
export const convertWrite = async (
  principal: Principal,
  located: Located,
  schema: TableSchema,
  records: readonly { fields: Record<string, unknown> }[],
  options: { fieldKeyType: FieldKeyType; typecast: boolean },
) => {
  const ctx = await writeContextFor(principal, located, schema);
  const converted = convertRecords(
    schema.fields,
    records.map((r) => r.fields),
    { keyType: options.fieldKeyType, typecast: options.typecast, ctx },
  );
  const fields = schema.fields.map((f) => converted.changedFields.find((c) => c.id === f.id) ?? f);
  return { ctx, converted, fields };
};
