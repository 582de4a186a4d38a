/**
 * rollup (computed.md 5): one expression over the values a link reaches, stored per record. Its
 * definition (lookupOptions, expression, result type) is checked in `fields/lookup.ts`, which
 * knows the foreign table; this kind renders and queries the stored result.
 */

import type { FieldKind } from '../field-types.ts';
import { readOptions } from '../kind-helpers.ts';
import { resultText } from '../result-options.ts';

export const rollup: FieldKind = {
  type: 'rollup',
  defaultName: 'Rollup',
  isComputed: true,
  allowedAsPrimary: false,
  queryByResult: true,
  // checked with the foreign table in fields/lookup.ts; kept as given here
  normalizeOptions: (options) => readOptions(options, 'rollup'),
  cellValueType: () => 'number',
  isMultipleCellValue: () => false,
  validate: () => ({ value: undefined }),
  typecast: () => ({ value: undefined }),
  defaultValue: () => undefined,
  toJson: (value) => value,
  toText: (value, field) => resultText(value, field),
  query: { valueClass: 'text', searchedByDefault: true, searchCost: 3 },
};
