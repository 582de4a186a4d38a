/** singleLineText and longText (fields.md "Types"). */

import type { Converted, Field, FieldKind, FieldType } from '../field-types.ts';
import { cellError, isNothing, isRecord, optionsError, readOptions, textOf } from '../kind-helpers.ts';
import { cellBytes, kb, MAX_CELL_BYTES } from '../size.ts';

/** How a singleLineText may be shown (`options.showAs.type`). */
export const SHOW_AS_TYPES = ['url', 'email', 'phone'] as const;

// \r\n first so a Windows line break becomes one space, not two
const LINE_BREAKS_AND_TABS = /\r\n|[\r\n\t]/g;

const makeText = (singleLine: boolean) => (text: string) =>
  singleLine ? text.replace(LINE_BREAKS_AND_TABS, ' ') : text;

const textKind = (
  type: FieldType,
  defaultName: string,
  singleLine: boolean,
  searchCost: number,
): FieldKind => {
  const normalise = makeText(singleLine);
  // "" clears: the cell is left out rather than stored empty
  const store = (text: string): Converted => {
    const value = normalise(text);
    return { value: value === '' ? undefined : value };
  };
  return {
    type,
    defaultName,
    isComputed: false,
    allowedAsPrimary: true,
    normalizeOptions(options) {
      const o = readOptions(options, type);
      const out: Record<string, unknown> = {};
      if (singleLine && !isNothing(o.showAs)) {
        const showAs = o.showAs;
        if (!isRecord(showAs) || !SHOW_AS_TYPES.includes(showAs.type as never))
          throw optionsError(type, `showAs.type must be one of ${SHOW_AS_TYPES.join(', ')}`);
        out.showAs = { type: showAs.type };
      }
      if (!isNothing(o.defaultValue)) {
        if (typeof o.defaultValue !== 'string') throw optionsError(type, 'defaultValue must be text');
        const value = normalise(o.defaultValue);
        // the default fills cells, so it must fit one (and the field item it is stored in)
        if (cellBytes(value) > MAX_CELL_BYTES)
          throw optionsError(
            type,
            `defaultValue takes ${kb(cellBytes(value))}; a cell may hold at most ${kb(MAX_CELL_BYTES)}`,
          );
        if (value !== '') out.defaultValue = value;
      }
      return out;
    },
    cellValueType: () => 'string',
    isMultipleCellValue: () => false,
    validate(value, field) {
      if (isNothing(value)) return { value: undefined };
      if (typeof value !== 'string') throw cellError(field, 'expected text');
      return store(value);
    },
    typecast: (value) => store(textOf(value)),
    defaultValue: (field: Field) =>
      typeof field.options.defaultValue === 'string' && field.options.defaultValue !== ''
        ? normalise(field.options.defaultValue)
        : undefined,
    toJson: (value) => value,
    toText: (value) => textOf(value),
    query: { valueClass: 'text', searchedByDefault: true, searchCost },
  };
};

/** One line of text: line breaks and tabs become spaces. */
export const singleLineText = textKind('singleLineText', 'Label', true, 3);

/** Text with line breaks kept. */
export const longText = textKind('longText', 'Notes', false, 4);
