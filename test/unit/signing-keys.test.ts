import { rmSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { MIN_KEY_BYTES, parseSigningKeys, signingKeys } from '#shared/auth/signing-keys.ts';

// `config` reads the environment when first imported, so the file path is set before any import.
const { KEYS_FILE } = await vi.hoisted(async () => {
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const file = join(tmpdir(), `unit-signing-keys-${process.pid}-${Date.now()}.json`);
  process.env.SIGNING_KEYS_FILE = file;
  return { KEYS_FILE: file };
});

const KEY_A = 'a'.repeat(32);
const KEY_B = 'b'.repeat(40);

afterAll(() => rmSync(KEYS_FILE, { force: true }));

describe('parseSigningKeys', () => {
  it('reads the top-level form {current, <kid>: <key>}', () => {
    expect(parseSigningKeys(JSON.stringify({ current: 'k1', k1: KEY_A }))).toStrictEqual({
      current: 'k1',
      keys: { k1: KEY_A },
    });
  });

  it('reads the nested form {current, keys: {<kid>: <key>}}', () => {
    expect(parseSigningKeys(JSON.stringify({ current: 'k2', keys: { k1: KEY_A, k2: KEY_B } }))).toStrictEqual(
      {
        current: 'k2',
        keys: { k1: KEY_A, k2: KEY_B },
      },
    );
  });

  it('merges both forms', () => {
    expect(parseSigningKeys(JSON.stringify({ current: 'k2', keys: { k1: KEY_A }, k2: KEY_B }))).toStrictEqual(
      {
        current: 'k2',
        keys: { k1: KEY_A, k2: KEY_B },
      },
    );
  });

  it('ignores top-level values that are not strings', () => {
    expect(parseSigningKeys(JSON.stringify({ current: 'k1', k1: KEY_A, rotatedAt: 12 }))).toStrictEqual({
      current: 'k1',
      keys: { k1: KEY_A },
    });
  });

  it(`accepts a key of exactly ${MIN_KEY_BYTES} bytes`, () => {
    expect(MIN_KEY_BYTES).toBe(32);
    expect(() => parseSigningKeys(JSON.stringify({ current: 'k1', k1: 'x'.repeat(32) }))).not.toThrow();
  });

  it.each([
    [
      'a current key of 31 bytes',
      { current: 'k1', k1: 'x'.repeat(31) },
      'signing key k1 is shorter than 32 bytes',
    ],
    [
      'an old key of 31 bytes',
      { current: 'k1', keys: { k1: KEY_A, k0: 'x'.repeat(31) } },
      'signing key k0 is shorter than 32 bytes',
    ],
    ['an empty key', { current: 'k1', keys: { k1: '' } }, 'signing keys: no current key'],
    ['no current', { k1: KEY_A }, 'signing keys: no current key'],
    ['current naming a missing key', { current: 'k9', k1: KEY_A }, 'signing keys: no current key'],
    ['current not a string', { current: 1, k1: KEY_A }, 'signing keys: no current key'],
    ['no keys at all', { current: 'k1' }, 'signing keys: no current key'],
  ])('rejects %s', (_what, doc, message) => {
    expect(() => parseSigningKeys(JSON.stringify(doc))).toThrow(message);
  });

  it('counts bytes, not characters: 11 three-byte characters are 33 bytes', () => {
    expect(() => parseSigningKeys(JSON.stringify({ current: 'k1', k1: '€'.repeat(11) }))).not.toThrow();
  });

  it('rejects text that is not JSON', () => {
    expect(() => parseSigningKeys('not json')).toThrow(SyntaxError);
  });
});

describe('signingKeys (SIGNING_KEYS_FILE)', () => {
  it('fails while the file is missing, then reads it once it exists (a failure is not cached)', async () => {
    rmSync(KEYS_FILE, { force: true });
    await expect(signingKeys()).rejects.toThrow(/ENOENT/);

    writeFileSync(KEYS_FILE, JSON.stringify({ current: 'k1', k1: KEY_A }));

    await expect(signingKeys()).resolves.toStrictEqual({ current: 'k1', keys: { k1: KEY_A } });
  });

  it('reads the file once per process', async () => {
    writeFileSync(KEYS_FILE, JSON.stringify({ current: 'k1', k1: KEY_A }));
    const first = await signingKeys();

    writeFileSync(KEYS_FILE, JSON.stringify({ current: 'k2', k2: KEY_B }));

    expect(await signingKeys()).toBe(first);
  });
});
