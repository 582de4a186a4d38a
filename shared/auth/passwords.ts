import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Passwords: Teable's rule, and a memory-hard hash (scrypt) whose parameters are stored beside it
 * (`scrypt$<N>$<r>$<p>$<salt>$<hash>`), so they can be raised later: a stored hash of weaker
 * parameters still verifies, and `needsRehash` says when to store it again at the current ones.
 */

/** Teable's sign-up rule: at least 8 characters, a letter and a digit. */
export const PASSWORD_RULE = /^(?=.*[A-Z])(?=.*\d).{8,}$/i;
export const PASSWORD_RULE_MESSAGE = 'Must contain at least one letter and one number';
/** Longest password taken: scrypt reads it whole; nobody types more. */
export const PASSWORD_MAX_LENGTH = 256;

/** OWASP's scrypt parameters (N = 2^17, r = 8, p = 1): 128 MiB and ~0.2-0.4 s of one core a hash. */
export const SCRYPT_PARAMS = { N: 2 ** 17, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
const SALT_BYTES = 16;

interface Params {
  N: number;
  r: number;
  p: number;
}

const derive = (password: string, salt: Buffer, params: Params): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r + 1024 * 1024 };
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });

const encode = (params: Params, salt: Buffer, key: Buffer) =>
  `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;

const decode = (stored: string): { params: Params; salt: Buffer; key: Buffer } | undefined => {
  const [kind, n, r, p, salt, key] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !key) return undefined;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  if (![params.N, params.r, params.p].every((v) => Number.isInteger(v) && v > 0)) return undefined;
  return { params, salt: Buffer.from(salt, 'base64url'), key: Buffer.from(key, 'base64url') };
};

/** The stored form of a new password, at the current parameters. */
export const hashPassword = async (password: string): Promise<string> => {
  const salt = randomBytes(SALT_BYTES);
  return encode(SCRYPT_PARAMS, salt, await derive(password, salt, SCRYPT_PARAMS));
};

/**
 * A hash of no one's password at the current parameters: checked when the email is unknown (or
 * its user has no password), so that answer costs what a wrong password costs.
 */
const DECOY = encode(SCRYPT_PARAMS, Buffer.alloc(SALT_BYTES), Buffer.alloc(KEY_BYTES));

/**
 * True when the password is the one stored; compared in constant time. With no stored hash the
 * decoy is checked (the same work) and the answer is false.
 */
export const verifyPassword = async (password: string, stored: string | undefined): Promise<boolean> => {
  const parsed = decode(stored ?? DECOY) ?? (decode(DECOY) as NonNullable<ReturnType<typeof decode>>);
  const key = await derive(password, parsed.salt, parsed.params);
  return stored !== undefined && key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
};

/** True when a stored hash is of weaker parameters than the current ones (store it again at sign-in). */
export const needsRehash = (stored: string): boolean => {
  const parsed = decode(stored);
  return (
    !parsed ||
    parsed.params.N < SCRYPT_PARAMS.N ||
    parsed.params.r < SCRYPT_PARAMS.r ||
    parsed.params.p < SCRYPT_PARAMS.p
  );
};
