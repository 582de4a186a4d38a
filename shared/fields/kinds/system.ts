/**
 * The computed record stamps (fields.md "Types"): autoNumber, createdTime, lastModifiedTime,
 * createdBy, lastModifiedBy. Writes to them are ignored, so validate and typecast return no value;
 * the record path hands toJson/toText the record's own stamp (number, ISO text or UserRef).
 */

import type { FieldKind, FieldType } from '../field-types.ts';
import { isRecord, readOptions, textOf } from '../kind-helpers.ts';
import { dateText, normalizeDateFormatting, TIME_QUERY } from './date.ts';
import { PLAIN_NUMBER_CHARS } from './number.ts';
import { userCellOut } from './user.ts';

type Stamp = Pick<FieldKind, 'normalizeOptions' | 'cellValueType' | 'toText' | 'query'> &
  Partial<Pick<FieldKind, 'toJson'>>;

const systemKind = (type: FieldType, defaultName: string, stamp: Stamp): FieldKind => ({
  type,
  defaultName,
  isComputed: true,
  allowedAsPrimary: true,
  isMultipleCellValue: () => false,
  validate: () => ({ value: undefined }),
  typecast: () => ({ value: undefined }),
  defaultValue: () => undefined,
  toJson: (value) => value,
  ...stamp,
});

const noOptions = (type: FieldType) => (options: unknown) => {
  readOptions(options, type);
  return {};
};

const timeStamp = (type: FieldType): Stamp => ({
  normalizeOptions: (options) => ({
    formatting: normalizeDateFormatting(readOptions(options, type).formatting, type),
  }),
  cellValueType: () => 'dateTime',
  toText: (value, field) => dateText(value, field),
  query: TIME_QUERY,
});

const userStamp = (type: FieldType): Stamp => ({
  normalizeOptions: noOptions(type),
  toJson: (value) => userCellOut(value),
  cellValueType: () => 'string',
  toText: (value) => (isRecord(value) && typeof value.title === 'string' ? value.title : textOf(value)),
  query: { valueClass: 'user', searchedByDefault: true, searchCost: 1 },
});

/** The record's autoNumber. */
export const autoNumber = systemKind('autoNumber', 'ID', {
  normalizeOptions: noOptions('autoNumber'),
  cellValueType: () => 'number',
  toText: (value) => String(value),
  query: {
    valueClass: 'number',
    searchedByDefault: true,
    searchCost: 0,
    textAlphabet: () => PLAIN_NUMBER_CHARS,
  },
});

/** When the record was created. */
export const createdTime = systemKind('createdTime', 'Created Time', timeStamp('createdTime'));

/** When the record was last changed. */
export const lastModifiedTime = systemKind(
  'lastModifiedTime',
  'Last Modified Time',
  timeStamp('lastModifiedTime'),
);

/** Who created the record. */
export const createdBy = systemKind('createdBy', 'Created By', userStamp('createdBy'));

/** Who last changed the record. */
export const lastModifiedBy = systemKind('lastModifiedBy', 'Last Modified By', userStamp('lastModifiedBy'));
