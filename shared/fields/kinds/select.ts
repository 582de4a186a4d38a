/** singleSelect and multipleSelect (fields.md "Types", "Writing values"). */

import { COLORS, paletteColor } from '../colors.ts';
import type {
  Choice,
  Converted,
  Field,
  FieldKind,
  FieldType,
  KindQuery,
  WriteContext,
} from '../field-types.ts';
import {
  cellError,
  isNothing,
  isRecord,
  optionsError,
  quoteListItem,
  readOptions,
  splitList,
  textOf,
  unique,
} from '../kind-helpers.ts';

const MAX_CHOICE_NAME = 255;

/** Checks a choice list and gives every choice an id (`cho…`) and a color when it has none. */
export const normalizeChoices = (raw: unknown, type: string, newChoiceId: () => string): Choice[] => {
  if (isNothing(raw)) return [];
  if (!Array.isArray(raw)) throw optionsError(type, 'choices must be a list');
  const names = new Set<string>();
  const ids = new Set<string>();
  // ids given in the list are reserved first, so a generated id never repeats one further down
  const given = new Set(
    raw.map((item) => (isRecord(item) ? item.id : undefined)).filter((id) => typeof id === 'string'),
  );
  const freshId = (): string => {
    let id = newChoiceId();
    for (let tries = 0; given.has(id) && tries < 100; tries++) id = newChoiceId();
    return id;
  };
  return raw.map((item, index): Choice => {
    if (!isRecord(item)) throw optionsError(type, `choices[${index}] must be an object {name, id?, color?}`);
    const name = typeof item.name === 'string' ? item.name.trim() : '';
    if (name === '' || name.length > MAX_CHOICE_NAME)
      throw optionsError(type, `choices[${index}].name must be text of 1 to ${MAX_CHOICE_NAME} characters`);
    if (names.has(name)) throw optionsError(type, `duplicate choice name "${name}"`);
    names.add(name);
    if (!isNothing(item.id) && (typeof item.id !== 'string' || item.id === ''))
      throw optionsError(type, `choices[${index}].id must be text`);
    const id = typeof item.id === 'string' ? item.id : freshId();
    if (ids.has(id)) throw optionsError(type, `duplicate choice id "${id}"`);
    ids.add(id);
    if (!isNothing(item.color) && !COLORS.includes(item.color as never))
      throw optionsError(type, `choices[${index}].color must be one of ${COLORS.join(', ')}`);
    const color = typeof item.color === 'string' ? item.color : paletteColor(index);
    return { id, name, color };
  });
};

/** The choices of a select field as stored (normalised when the field was defined). */
export const choicesOf = (field: Field): Choice[] =>
  Array.isArray(field.options.choices) ? (field.options.choices as Choice[]) : [];

const choiceNames = (field: Field): Set<string> => new Set(choicesOf(field).map((c) => c.name));

/** Names not yet among the field's choices become new choices, colored after the existing ones. */
const withNewChoices = (names: string[], field: Field, ctx: WriteContext): Converted => {
  const known = choiceNames(field);
  const added = names.filter((name) => !known.has(name));
  const offset = choicesOf(field).length;
  const newChoices = added.map((name, i) => ({
    id: ctx.newChoiceId(),
    name,
    color: paletteColor(offset + i),
  }));
  return newChoices.length ? { value: undefined, newChoices } : { value: undefined };
};

/** A name as a choice definition keeps it: cut to the maximum, then trimmed (choices are trimmed). */
const clip = (name: string): string => name.slice(0, MAX_CHOICE_NAME).trim();

/** The text of one value naming a choice: a choice object by its name, anything else as text. */
const nameOf = (value: unknown): string =>
  clip(isRecord(value) && typeof value.name === 'string' ? value.name : textOf(value));

const checkDefault = (defaultValue: unknown, choices: Choice[], type: string, multiple: boolean): unknown => {
  if (isNothing(defaultValue)) return undefined;
  const names = new Set(choices.map((c) => c.name));
  const given = multiple && Array.isArray(defaultValue) ? defaultValue : [defaultValue];
  for (const name of given) {
    if (typeof name !== 'string' || !names.has(name))
      throw optionsError(type, `defaultValue must name ${multiple ? 'choices' : 'a choice'} of the field`);
  }
  if (given.length === 0) return undefined;
  return multiple ? unique(given as string[]) : given[0];
};

const selectKind = (type: FieldType, defaultName: string, multiple: boolean, searchCost: number) => ({
  type,
  defaultName,
  isComputed: false,
  allowedAsPrimary: true,
  normalizeOptions(options: unknown, ctx: { newChoiceId: () => string }): Record<string, unknown> {
    const o = readOptions(options, type);
    const choices = normalizeChoices(o.choices, type, ctx.newChoiceId);
    const defaultValue = checkDefault(o.defaultValue, choices, type, multiple);
    return defaultValue === undefined ? { choices } : { choices, defaultValue };
  },
  cellValueType: () => 'string' as const,
  isMultipleCellValue: () => multiple,
  query: { valueClass: 'select', searchedByDefault: true, searchCost } satisfies KindQuery,
});

/** One choice name (`"a"`); typecast adds unknown names as choices. */
export const singleSelect: FieldKind = {
  ...selectKind('singleSelect', 'Select', false, 0),
  validate(value, field) {
    // "" clears the cell, as it does for text.
    if (isNothing(value) || value === '') return { value: undefined };
    if (typeof value !== 'string') throw cellError(field, 'expected a choice name');
    if (!choiceNames(field).has(value)) throw cellError(field, `"${value}" is not a choice`);
    return { value };
  },
  typecast(value, field, ctx) {
    // a list written to a single select keeps its first item; line breaks become spaces (Teable)
    const name = clip(nameOf(Array.isArray(value) ? value[0] : value).replace(LINE_BREAK, ' '));
    if (name === '') return { value: undefined };
    return { ...withNewChoices([name], field, ctx), value: name };
  },
  defaultValue: (field) =>
    typeof field.options.defaultValue === 'string' ? field.options.defaultValue : undefined,
  toJson: (value) => value,
  toText: (value) => textOf(value),
};

const LINE_BREAK = /\r\n|\r|\n/g;

/**
 * Names from a typecast value: text split on commas and line breaks, as Teable splits it (unless
 * it names one choice), lists item by item.
 */
const namesOf = (value: unknown, field: Field): string[] => {
  if (typeof value === 'string') {
    const whole = value.trim();
    return choiceNames(field).has(whole) ? [whole] : value.split(LINE_BREAK).flatMap(splitList).map(clip);
  }
  if (Array.isArray(value)) return value.map(nameOf);
  return [nameOf(value)];
};

/** A list of choice names (`["a", "b"]`); typecast adds unknown names as choices. */
export const multipleSelect: FieldKind = {
  ...selectKind('multipleSelect', 'Tags', true, 1),
  validate(value, field) {
    if (isNothing(value)) return { value: undefined };
    if (!Array.isArray(value) || value.length === 0)
      throw cellError(field, 'expected a non-empty list of choice names');
    const names = choiceNames(field);
    for (const name of value) {
      if (typeof name !== 'string') throw cellError(field, 'expected a non-empty list of choice names');
      if (!names.has(name)) throw cellError(field, `"${name}" is not a choice`);
    }
    return { value: unique(value as string[]) };
  },
  typecast(value, field, ctx) {
    const names = unique(namesOf(value, field).filter((n) => n !== ''));
    if (names.length === 0) return { value: undefined };
    return { ...withNewChoices(names, field, ctx), value: names };
  },
  defaultValue: (field) =>
    Array.isArray(field.options.defaultValue) && field.options.defaultValue.length
      ? [...(field.options.defaultValue as string[])]
      : undefined,
  toJson: (value) => value,
  toText: (value) =>
    Array.isArray(value) ? value.map((n) => quoteListItem(textOf(n))).join(', ') : textOf(value),
};
