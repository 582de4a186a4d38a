import type { Principal } from '#shared/auth/permission.ts';
import type { Located } from '#shared/auth/resources.ts';
import { tokensOfAttachmentValue } from '#shared/fields/kinds/attachment.ts';
import type { FieldKeyType, TableSchema } from '#shared/schema/schema.ts';
import { convertRecords, fieldKeyOf } from './cells.ts';
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
  // The space's collaborators are read only when a user cell may be written: a value given for a
  // user field, or a user field whose default names someone other than the caller.
  const userFields = schema.fields.filter((f) => f.type === 'user');
  const userKeys = new Set(userFields.map((f) => fieldKeyOf(f, options.fieldKeyType)));
  const namesOthers = (d: unknown) => (Array.isArray(d) ? d : d == null ? [] : [d]).some((id) => id !== 'me');
  const writesUsers =
    userFields.some((f) => namesOthers(f.options.defaultValue)) ||
    records.some((r) => Object.keys(r.fields).some((k) => userKeys.has(k)));
  // The uploads the attachment cells name are read only when such cells are written.
  const attachmentKeys = new Set(
    schema.fields.filter((f) => f.type === 'attachment').map((f) => fieldKeyOf(f, options.fieldKeyType)),
  );
  const tokens = attachmentKeys.size
    ? records.flatMap((r) =>
        Object.entries(r.fields).flatMap(([k, v]) =>
          attachmentKeys.has(k) ? tokensOfAttachmentValue(v) : [],
        ),
      )
    : [];
  const ctx = await writeContextFor(principal, located, schema, writesUsers, tokens);
  const converted = convertRecords(
    schema.fields,
    records.map((r) => r.fields),
    { keyType: options.fieldKeyType, typecast: options.typecast, ctx },
  );
  const fields = schema.fields.map((f) => converted.changedFields.find((c) => c.id === f.id) ?? f);
  return { ctx, converted, fields };
};
