import { describe, expect, it } from 'vitest';
import { fieldKind } from '#shared/fields/registry.ts';
import { alice, makeField, readCtx, writeCtx } from './support.ts';

const ctx = writeCtx();
const COMPUTED = ['autoNumber', 'createdTime', 'lastModifiedTime', 'createdBy', 'lastModifiedBy'];

describe('computed record stamps', () => {
  it.each(COMPUTED)('%s is computed, ignores writes and has no default', (type) => {
    const kind = fieldKind(type);
    const field = makeField(type);
    expect(kind.isComputed).toBe(true);
    expect(field.isComputed).toBe(true);
    expect(kind.allowedAsPrimary).toBe(true);
    expect(kind.validate('anything', field, ctx)).toEqual({ value: undefined });
    expect(kind.typecast({ a: 1 }, field, ctx)).toEqual({ value: undefined });
    expect(kind.defaultValue(field, ctx)).toBeUndefined();
  });

  it.each([
    ['autoNumber', 'number', 'ID'],
    ['createdTime', 'dateTime', 'Created Time'],
    ['lastModifiedTime', 'dateTime', 'Last Modified Time'],
    ['createdBy', 'string', 'Created By'],
    ['lastModifiedBy', 'string', 'Last Modified By'],
  ])('%s: cell value type %s, default name %s', (type, cellValueType, defaultName) => {
    expect(fieldKind(type).cellValueType({})).toBe(cellValueType);
    expect(fieldKind(type).defaultName).toBe(defaultName);
  });

  it('autoNumber renders the number', () => {
    const field = makeField('autoNumber', { expression: 'AUTO_NUMBER()' });
    expect(field.options).toEqual({});
    expect(fieldKind('autoNumber').toJson(7, field, readCtx)).toBe(7);
    expect(fieldKind('autoNumber').toText(7, field, readCtx)).toBe('7');
  });

  it.each(['createdTime', 'lastModifiedTime'])('%s renders the ISO time formatted like a date', (type) => {
    const field = makeField(type, {
      formatting: { date: 'DD/MM/YYYY', time: 'HH:mm', timeZone: 'Asia/Tokyo' },
    });
    expect(field.options).toEqual({
      formatting: { date: 'DD/MM/YYYY', time: 'HH:mm', timeZone: 'Asia/Tokyo' },
    });
    expect(fieldKind(type).toJson('2026-02-28T15:30:00.000Z', field, readCtx)).toBe(
      '2026-02-28T15:30:00.000Z',
    );
    expect(fieldKind(type).toText('2026-02-28T15:30:00.000Z', field, readCtx)).toBe('01/03/2026 00:30');
    expect(makeField(type).options).toEqual({
      formatting: { date: 'YYYY-MM-DD', time: 'None', timeZone: 'UTC' },
    });
  });

  it('a time stamp with a bad zone is a 400', () => {
    expect(() => makeField('createdTime', { formatting: { timeZone: 'Nowhere' } })).toThrow(
      'Invalid options for a createdTime field: formatting.timeZone "Nowhere" is not an IANA time zone',
    );
  });

  it.each(['createdBy', 'lastModifiedBy'])('%s renders the user title', (type) => {
    const field = makeField(type);
    expect(fieldKind(type).toJson(alice, field, readCtx)).toEqual({ ...alice, avatarUrl: null });
    expect(fieldKind(type).toText(alice, field, readCtx)).toBe('Alice');
  });
});
