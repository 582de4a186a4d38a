import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The local data folder (git-ignored): DynamoDB files, signing keys, outbox, state. */
export const LOCAL_DIR =
  process.env.LOCAL_DATA_DIR ?? join(new URL('../../', import.meta.url).pathname, '.local');

/** Writes a fresh signing-keys file unless one exists; returns its path. */
export const ensureSigningKeys = async (dir: string): Promise<string> => {
  const file = join(dir, 'signing-keys.json');
  if (!existsSync(file)) {
    await mkdir(dir, { recursive: true });
    const doc = { current: 'local-1', keys: { 'local-1': randomBytes(48).toString('base64url') } };
    await writeFile(file, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o600 });
  }
  return file;
};

/**
 * Points the shared library at a DynamoDB endpoint and table. Must run before any module of
 * `shared/` or `functions/` is imported: they read their configuration at load.
 */
export const configureEnvironment = (input: {
  endpoint?: string;
  tableName: string;
  signingKeysFile: string;
}) => {
  if (input.endpoint) {
    process.env.AWS_ENDPOINT_URL_DYNAMODB = input.endpoint;
    process.env.AWS_REGION ??= 'us-east-1';
    process.env.AWS_ACCESS_KEY_ID ??= 'local';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
  }
  process.env.TABLE_NAME = input.tableName;
  process.env.SIGNING_KEYS_FILE = input.signingKeysFile;
  process.env.STAGE ??= 'local';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
};

/** Reads a JSON state file, or undefined. */
export const readJson = async <T>(file: string): Promise<T | undefined> => {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
};
