/**
 * Open-ended input never becomes a 500: typecast never throws, validate and option checks throw
 * only ValidationError, and whatever typecast produces is a valid cell that renders.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '#shared/core/errors.ts';
import { defineField } from '#shared/fields/define.ts';
import type { Choice, Field } from '#shared/fields/field-types.ts';
import { fieldKind } from '#shared/fields/registry.ts';
import { choiceIds, makeField, REC_1, readCtx, TABLE_ID, writeCtx } from './support.ts';

const FIELDS: Field[] = [
  makeField('singleLineText'),
  makeField('longText'),
  makeField('number'),
  makeField('number', { formatting: { type: 'currency', precision: 0 } }),
  makeField('rating', { max: 10 }),
  makeField('checkbox'),
  makeField('singleSelect', { choices: [{ name: 'a' }, { name: 'b, c' }] }),
  makeField('multipleSelect', { choices: [{ name: 'a' }, { name: 'b, c' }] }),
  makeField('date'),
  makeField('date', { formatting: { date: 'DD/MM/YYYY', time: 'hh:mm A', timeZone: 'America/New_York' } }),
  makeField('user'),
  makeField('user', { isMultiple: true }),
  makeField('attachment'),
  makeField('link', { relationship: 'manyMany', foreignTableId: TABLE_ID }),
  makeField('link', { relationship: 'oneOne', foreignTableId: TABLE_ID }),
  makeField('autoNumber'),
  makeField('createdTime'),
  makeField('lastModifiedTime'),
  makeField('createdBy'),
  makeField('lastModifiedBy'),
];

const label = (f: Field) => `${f.type} ${JSON.stringify(f.options).slice(0, 60)}`;

// JSON values plus the shapes each type actually wants, so the valid paths get exercised too
const cellInput = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom(
    'a',
    'b, c',
    ['a', 'b, c'],
    '2026-03-01',
    '2026-03-01T10:00:00+01:00',
    { id: REC_1 },
    [{ id: REC_1 }, 'Alpha'],
    { id: 'usrAliceAAAAAAAAAAA' },
    'Alice, Bob',
    [{ name: 'f.png', token: 't', size: 1 }],
    '$1,234.5',
    '12%',
    true,
    3,
  ),
);

/** The field with the choices typecast added, as the write path stores it. */
const withChoices = (field: Field, added: Choice[] | undefined): Field =>
  added?.length
    ? { ...field, options: { ...field.options, choices: [...(field.options.choices as Choice[]), ...added] } }
    : field;

describe.each(FIELDS.map((f) => [label(f), f] as const))('%s', (_label, field) => {
  const kind = fieldKind(field.type);

  it('typecast never throws, and its cell validates to itself and renders (property)', () => {
    fc.assert(
      fc.property(cellInput, (value) => {
        const ctx = writeCtx();
        const converted = kind.typecast(value, field, ctx);
        if (converted.value === undefined) return;
        const stored = withChoices(field, converted.newChoices);
        expect(kind.validate(converted.value, stored, writeCtx()).value).toEqual(converted.value);
        expect(typeof kind.toText(converted.value, stored, readCtx)).toBe('string');
        kind.toJson(converted.value, stored, readCtx);
      }),
    );
  });

  it('validate throws only ValidationErrors naming the field (property)', () => {
    fc.assert(
      fc.property(cellInput, (value) => {
        try {
          kind.validate(value, field, writeCtx());
        } catch (error) {
          expect(error).toBeInstanceOf(ValidationError);
          expect((error as Error).message.startsWith(`Field "Name" (${field.id}): `)).toBe(true);
        }
      }),
    );
  });

  it('normalizeOptions throws only ValidationErrors (property)', () => {
    const options = fc.oneof(fc.jsonValue(), fc.dictionary(fc.constantFrom(...OPTION_KEYS), fc.jsonValue()));
    fc.assert(
      fc.property(options, (raw) => {
        try {
          kind.normalizeOptions(raw, { newChoiceId: choiceIds() });
        } catch (error) {
          expect(error).toBeInstanceOf(ValidationError);
        }
      }),
    );
  });
});

const OPTION_KEYS = [
  'formatting',
  'defaultValue',
  'choices',
  'showAs',
  'max',
  'icon',
  'color',
  'isMultiple',
  'shouldNotify',
  'relationship',
  'foreignTableId',
  'isOneWay',
  'symmetricFieldId',
  'lookupFieldId',
];

describe('defineField on any body', () => {
  it('answers a field or a ValidationError (property)', () => {
    const body = fc.record(
      {
        type: fc.oneof(fc.constantFrom(...FIELDS.map((f) => f.type), 'formula'), fc.jsonValue()),
        name: fc.jsonValue(),
        dbFieldName: fc.oneof(fc.string(), fc.jsonValue()),
        description: fc.jsonValue(),
        options: fc.jsonValue(),
        notNull: fc.jsonValue(),
        unique: fc.jsonValue(),
        isPrimary: fc.jsonValue(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(body, (input) => {
        try {
          const field = defineField(input, { existing: FIELDS, newChoiceId: choiceIds() });
          expect(field.dbFieldName).toMatch(/^[A-Za-z_]\w{0,62}$/);
          expect(FIELDS.map((f) => f.name)).not.toContain(field.name);
        } catch (error) {
          expect(error).toBeInstanceOf(ValidationError);
        }
      }),
    );
  });
});
