import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ID_PREFIX, type IdKind, isId, newId, newTimeOrderedId, randomBase62 } from '#shared/ids.ts';

const KINDS = Object.keys(ID_PREFIX) as IdKind[];
const BASE62 = /^[0-9A-Za-z]*$/;

describe('newId', () => {
  it.each(KINDS)('a new %s id is its prefix plus 16 base62 characters', (kind) => {
    const id = newId(kind);

    const prefix = ID_PREFIX[kind];
    expect(id.startsWith(prefix)).toBe(true);
    expect(id.slice(prefix.length)).toMatch(/^[0-9A-Za-z]{16}$/);
    expect(id).toHaveLength(prefix.length + 16);
  });

  it.each([
    ['space', 'spc'],
    ['base', 'bse'],
    ['table', 'tbl'],
    ['field', 'fld'],
    ['view', 'viw'],
    ['record', 'rec'],
    ['user', 'usr'],
    ['accessToken', 'acc'],
    ['dashboard', 'dsh'],
    ['plugin', 'plg'],
    ['pluginInstall', 'pli'],
    ['node', 'nod'],
    ['trash', 'trs'],
    ['notification', 'not'],
    ['organization', 'org'],
    ['choice', 'cho'],
    ['query', 'qry_'],
  ] as const)('the prefix of a %s id is the contract prefix %s', (kind, prefix) => {
    expect(ID_PREFIX[kind]).toBe(prefix);
    expect(newId(kind).startsWith(prefix)).toBe(true);
  });

  it('a saved query id has the underscore prefix and 20 characters in all', () => {
    expect(newId('query')).toMatch(/^qry_[0-9A-Za-z]{16}$/);
  });

  it('ids made one after another are distinct', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newId('record')));

    expect(ids.size).toBe(1000);
  });

  it.each(KINDS)('isId accepts a fresh %s id', (kind) => {
    expect(isId(kind, newId(kind))).toBe(true);
  });
});

describe('isId', () => {
  it.each([
    ['a correct space id', 'space', 'spcAbcdefgh01234567', true],
    ['a correct query id', 'query', 'qry_Abcdefgh01234567', true],
    ['a query id without the underscore', 'query', 'qryAbcdefgh01234567X', false],
    ['another kind of prefix', 'space', 'bseAbcdefgh01234567', false],
    ['an upper-case prefix', 'space', 'SPCAbcdefgh01234567', false],
    ['a body one character short', 'space', 'spcAbcdefgh0123456', false],
    ['a body one character long', 'space', 'spcAbcdefgh012345678', false],
    ['a dash in the body', 'space', 'spcAbcdefgh0123-567', false],
    ['an underscore in the body', 'space', 'spcAbcdefgh0123_567', false],
    ['a space in the body', 'space', 'spcAbcdefgh0123 567', false],
    ['a non-ASCII letter in the body', 'space', 'spcAbcdefgh0123é567', false],
    ['the empty string', 'space', '', false],
    ['the prefix alone', 'space', 'spc', false],
  ] as const)('%s → %s', (_what, kind, value, expected) => {
    expect(isId(kind, value)).toBe(expected);
  });

  it.each([
    ['a number', 12345],
    ['null', null],
    ['undefined', undefined],
    ['an object', { id: 'spcAbcdefgh01234567' }],
    ['an array', ['spcAbcdefgh01234567']],
  ])('rejects %s', (_what, value) => {
    expect(isId('space', value)).toBe(false);
  });

  it('accepts exactly the prefix plus 16 base62 characters (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...KINDS), fc.string({ maxLength: 24 }), (kind, body) => {
        const expected = body.length === 16 && /^[0-9A-Za-z]+$/.test(body);
        expect(isId(kind, `${ID_PREFIX[kind]}${body}`)).toBe(expected);
      }),
    );
  });
});

describe('newTimeOrderedId', () => {
  it('has the notification prefix and 16 base62 characters', () => {
    expect(newTimeOrderedId('notification', 1_780_000_000_000)).toMatch(/^not[0-9A-Za-z]{16}$/);
  });

  it('starts its body with the same 8 characters for the same millisecond', () => {
    const a = newTimeOrderedId('notification', 1_780_000_000_123);
    const b = newTimeOrderedId('notification', 1_780_000_000_123);

    expect(a.slice(0, 11)).toBe(b.slice(0, 11));
    expect(a).not.toBe(b);
  });

  it('ids made at increasing times sort in that order as strings', () => {
    const times = [0, 1, 61, 62, 63, 3843, 3844, 1_700_000_000_000, 1_700_000_000_001, 1_780_000_000_000];
    const ids = times.map((t) => newTimeOrderedId('notification', t));

    expect([...ids].sort()).toEqual(ids);
  });

  it('sorts by time for any two different times (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 62 ** 8 - 1 }),
        fc.integer({ min: 0, max: 62 ** 8 - 1 }),
        (t1, t2) => {
          fc.pre(t1 !== t2);
          const a = newTimeOrderedId('notification', t1);
          const b = newTimeOrderedId('notification', t2);
          expect(a < b).toBe(t1 < t2);
        },
      ),
    );
  });

  it('is a valid id of its kind', () => {
    expect(isId('notification', newTimeOrderedId('notification'))).toBe(true);
  });
});

describe('randomBase62', () => {
  it('has the asked length and only base62 characters (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 300 }), (length) => {
        const text = randomBase62(length);
        expect(text).toHaveLength(length);
        expect(text).toMatch(BASE62);
      }),
    );
  });

  it('is the empty string for length 0', () => {
    expect(randomBase62(0)).toBe('');
  });

  it('uses every one of the 62 characters over a long text', () => {
    const seen = new Set(randomBase62(20_000));

    expect(seen.size).toBe(62);
  });
});
