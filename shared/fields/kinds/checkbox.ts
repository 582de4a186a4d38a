/** checkbox (fields.md "Types"): checked is `true`, unchecked is no value. */

import type { FieldKind } from '../field-types.ts';
import { cellError, isNothing, optionalBoolean, readOptions } from '../kind-helpers.ts';

/** A checkbox cell: `true`, or empty when unchecked. */
export const checkbox: FieldKind = {
  type: 'checkbox',
  defaultName: 'Done',
  isComputed: false,
  allowedAsPrimary: false,
  normalizeOptions(options) {
    const defaultValue = optionalBoolean(readOptions(options, 'checkbox'), 'defaultValue', 'checkbox');
    return defaultValue === undefined ? {} : { defaultValue };
  },
  cellValueType: () => 'boolean',
  isMultipleCellValue: () => false,
  validate(value, field) {
    if (isNothing(value)) return { value: undefined };
    // false is refused rather than read as unchecked: the contract keeps Teable's strictness here
    if (value !== true) throw cellError(field, 'expected true or null');
    return { value: true };
  },
  // Text people write for "no" counts as unchecked, not as a truthy string.
  typecast: (value) => ({ value: isFalseText(value) || !value ? undefined : true }),
  defaultValue: (field) => (field.options.defaultValue === true ? true : undefined),
  toJson: (value) => value,
  toText: (value) => (value ? 'true' : ''),
  query: { valueClass: 'boolean', searchedByDefault: false, searchCost: 0, textAlphabet: () => 'true' },
};

const FALSE_TEXTS = new Set(['false', '0', 'no', 'off', 'n', 'unchecked']);

/** True for text that means "no" (`false`, `0`, `no`, `off`…, any case). */
export const isFalseText = (value: unknown): boolean =>
  typeof value === 'string' && FALSE_TEXTS.has(value.trim().toLowerCase());
