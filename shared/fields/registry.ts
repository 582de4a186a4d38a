/** Every field type's `FieldKind`, looked up by type name. */
import { ValidationError } from '#shared/core/errors.ts';
import { FIELD_TYPES, type FieldKind, type FieldType } from './field-types.ts';
import { attachment } from './kinds/attachment.ts';
import { checkbox } from './kinds/checkbox.ts';
import { date } from './kinds/date.ts';
import { formula } from './kinds/formula.ts';
import { link } from './kinds/link.ts';
import { number, rating } from './kinds/number.ts';
import { rollup } from './kinds/rollup.ts';
import { multipleSelect, singleSelect } from './kinds/select.ts';
import { autoNumber, createdBy, createdTime, lastModifiedBy, lastModifiedTime } from './kinds/system.ts';
import { longText, singleLineText } from './kinds/text.ts';
import { user } from './kinds/user.ts';

/** Types of the contract whose kind is not built yet (none: every type has its kind). */
export const PENDING_FIELD_TYPES = [] as const;

/** The field types that have a kind today. */
export type BuiltFieldType = Exclude<FieldType, (typeof PENDING_FIELD_TYPES)[number]>;

/** The kind of every built type; adding formula is adding it here and to `BuiltFieldType`. */
export const FIELD_KINDS: Readonly<Record<BuiltFieldType, FieldKind>> = {
  singleLineText,
  longText,
  number,
  rating,
  checkbox,
  singleSelect,
  multipleSelect,
  date,
  user,
  attachment,
  link,
  autoNumber,
  createdTime,
  lastModifiedTime,
  createdBy,
  lastModifiedBy,
  formula,
  rollup,
};

/** Types allowed as the primary field (fields.md "The primary field"), built or not. */
export const PRIMARY_FIELD_TYPES: readonly FieldType[] = [
  ...Object.values(FIELD_KINDS)
    .filter((k) => k.allowedAsPrimary)
    .map((k) => k.type),
];

/** True when `type` names a type of the contract (built or not). */
export const isFieldType = (type: unknown): type is FieldType => FIELD_TYPES.includes(type as FieldType);

/** The kind of a field type, or undefined for a type with no kind (formula, rollup, unknown). */
export const kindOf = (type: string): FieldKind | undefined =>
  Object.hasOwn(FIELD_KINDS, type) ? FIELD_KINDS[type as BuiltFieldType] : undefined;

/** The kind of a field type; an unknown or not yet supported type is a 400. */
export const fieldKind = (type: string): FieldKind => {
  const kind = kindOf(type);
  if (kind) return kind;
  if (isFieldType(type)) throw new ValidationError(`Field type ${type} is not supported yet`);
  throw new ValidationError(
    `Unknown field type "${String(type)}"; expected one of ${Object.keys(FIELD_KINDS).join(', ')}`,
  );
};
