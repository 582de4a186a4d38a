import { describe, expect, it } from 'vitest';
import { user } from '#shared/fields/kinds/user.ts';
import { alice, bob, makeField, readCtx, samA, stranger, validationError, writeCtx } from './support.ts';

const ctx = writeCtx();
const owner = makeField('user');
const team = makeField('user', { isMultiple: true, shouldNotify: false });

describe('user options', () => {
  it('keep isMultiple, shouldNotify and a default', () => {
    expect(
      user.normalizeOptions({ isMultiple: true, shouldNotify: true, defaultValue: ['me'], x: 1 }, ctx),
    ).toEqual({
      isMultiple: true,
      shouldNotify: true,
      defaultValue: ['me'],
    });
    expect(user.normalizeOptions(undefined, ctx)).toEqual({});
  });

  it.each([
    ['isMultiple not a boolean', { isMultiple: 'yes' }, 'isMultiple must be true or false'],
    [
      'a default that is a number',
      { defaultValue: 3 },
      'defaultValue must be "me", a user id, or a list of them',
    ],
    [
      'an empty default list',
      { defaultValue: [] },
      'defaultValue must be "me", a user id, or a list of them',
    ],
  ])('%s is a 400', (_what, options, message) => {
    expect(validationError(() => user.normalizeOptions(options, ctx)).message).toBe(
      `Invalid options for a user field: ${message}`,
    );
  });

  it('a multiple user field holds a list', () => {
    expect(user.isMultipleCellValue(team.options)).toBe(true);
    expect(user.isMultipleCellValue(owner.options)).toBe(false);
    expect(user.cellValueType({})).toBe('string');
  });
});

describe('user cells', () => {
  it.each([
    ['{id} of a collaborator', { id: alice.id }, alice],
    ['{id} with stale title and email', { id: alice.id, title: 'Old', email: 'old@x' }, alice],
    ['a bare id', bob.id, bob],
    ['a one-item list', [{ id: bob.id }], bob],
    ['null clears', null, undefined],
  ])('validate single: %s', (_what, value, expected) => {
    expect(user.validate(value, owner, ctx)).toEqual({ value: expected });
  });

  it.each([
    ['a list', [{ id: alice.id }, { id: bob.id }], [alice, bob]],
    ['duplicates dropped', [{ id: alice.id }, alice.id], [alice]],
    ['one object', { id: bob.id }, [bob]],
  ])('validate multiple: %s', (_what, value, expected) => {
    expect(user.validate(value, team, ctx)).toEqual({ value: expected });
  });

  it('validate stores only id, title and email', () => {
    const rich = { ...alice, avatarUrl: 'https://x' };
    expect(user.validate({ id: alice.id }, owner, writeCtx({ collaborators: [rich] })).value).toEqual(alice);
  });

  it.each([
    ['not a collaborator', owner, { id: stranger.id }, `${stranger.id} is not a collaborator of this space`],
    [
      'two users in a single field',
      owner,
      [{ id: alice.id }, { id: bob.id }],
      'expected {id} of a collaborator',
    ],
    ['an id that is not text', owner, { id: 5 }, 'expected {id} of a collaborator'],
    ['a number', owner, 5, 'expected {id} of a collaborator'],
    ['an empty list', team, [], 'expected a non-empty list of {id} of collaborators'],
  ])('validate: %s is a 400 naming the field', (_what, field, value, message) => {
    expect(validationError(() => user.validate(value, field, ctx)).message).toBe(
      `Field "${field.name}" (${field.id}): ${message}`,
    );
  });

  it.each([
    ['an id', alice.id, alice],
    ['an email, any case', 'BOB@example.com', bob],
    ['a name', 'Alice', alice],
    ['a name in another case', 'alice', alice],
    ['a unique email among people sharing a name', samA.email, samA],
    ['a name two people share', 'Sam', undefined],
    ['nobody', 'Zed', undefined],
    ['text with commas: the first match', 'Zed, Bob, Alice', bob],
    ['an object by id', { id: bob.id }, bob],
    ['an object by email', { email: alice.email }, alice],
    ['a list: the first match', ['Zed', 'Bob'], bob],
    ['a number', 5, undefined],
    ['empty text', '', undefined],
  ])('typecast single: %s', (_what, value, expected) => {
    expect(user.typecast(value, owner, ctx)).toEqual({ value: expected });
  });

  it.each([
    ['comma-separated text', 'Alice, bob@example.com', [alice, bob]],
    ['unknown and ambiguous names dropped', 'Alice, Sam, Zed', [alice]],
    ['a list of texts and objects', ['Bob', { id: alice.id }, 'Bob'], [bob, alice]],
    ['nothing found', 'Zed', undefined],
  ])('typecast multiple: %s', (_what, value, expected) => {
    expect(user.typecast(value, team, ctx)).toEqual({ value: expected });
  });

  it.each([
    ['"me" is the caller', owner, 'me', alice],
    ['an id', owner, bob.id, bob],
    ['a list in a multiple field', team, ['me', bob.id, stranger.id], [alice, bob]],
    ['an unknown id gives nothing', owner, stranger.id, undefined],
  ])('default: %s', (_what, field, defaultValue, expected) => {
    const withDefault = { ...field, options: { ...field.options, defaultValue } };
    expect(user.defaultValue(withDefault, ctx)).toEqual(expected);
  });

  it('renders titles joined by ", "', () => {
    expect(user.toText(alice, owner, readCtx)).toBe('Alice');
    expect(user.toText([alice, bob], team, readCtx)).toBe('Alice, Bob');
    // answered with avatarUrl null (no avatars are stored; teable-routes.md 4)
    expect(user.toJson([alice, bob], team, readCtx)).toEqual([
      { ...alice, avatarUrl: null },
      { ...bob, avatarUrl: null },
    ]);
  });
});
