import { createHash, createHmac } from 'node:crypto';

/**
 * Presigned GET URLs for objects of the attachments bucket, computed synchronously (Signature
 * Version 4, query form), so a record answer can carry a download URL per attachment without an
 * await or a round trip per cell. The same URL `@aws-sdk/s3-request-presigner` gives for the same
 * inputs (a unit test compares them); the SDK itself presigns uploads (`objects.ts`).
 */

/** Where the bucket is and who signs. */
export interface SignerConfig {
  bucket: string;
  region: string;
  /** A custom endpoint (the local S3-compatible server): path-style URLs. Unset: AWS, virtual-hosted. */
  endpoint?: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** RFC 3986 encoding as SigV4 wants it (`/` kept in paths when `path`). */
const encode = (text: string, path = false): string =>
  encodeURIComponent(text)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%2F/g, path ? '/' : '%2F');

const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data).digest();
const sha256 = (data: string): string => createHash('sha256').update(data).digest('hex');

/** The signing key of a day (`yyyymmdd`), region and service: cached, it changes once a day. */
const keys = new Map<string, Buffer>();
const signingKey = (secret: string, day: string, region: string): Buffer => {
  const id = `${sha256(secret)}|${day}|${region}`;
  let key = keys.get(id);
  if (!key) {
    if (keys.size > 16) keys.clear();
    key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), 's3'), 'aws4_request');
    keys.set(id, key);
  }
  return key;
};

/** `20261128T101500Z`. */
const amzDate = (at: Date): string =>
  at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

/**
 * A URL that downloads `key` until `expiresIn` seconds after `now` (at most 7 days); `filename`
 * makes the download save under that name (`response-content-disposition`). Pure.
 */
export const presignGet = (
  config: SignerConfig,
  key: string,
  options: { expiresIn: number; filename?: string; now?: Date },
): string => {
  const now = options.now ?? new Date();
  const stamp = amzDate(now);
  const day = stamp.slice(0, 8);
  const custom = config.endpoint ? new URL(config.endpoint) : undefined;
  const host = custom ? custom.host : `${config.bucket}.s3.${config.region}.amazonaws.com`;
  const origin = custom ? `${custom.protocol}//${custom.host}` : `https://${host}`;
  const path = custom ? `/${config.bucket}/${encode(key, true)}` : `/${encode(key, true)}`;
  const scope = `${day}/${config.region}/s3/aws4_request`;
  const query: [string, string][] = [
    ['X-Amz-Algorithm', 'AWS4-HMAC-SHA256'],
    ['X-Amz-Content-Sha256', 'UNSIGNED-PAYLOAD'],
    ['X-Amz-Credential', `${config.accessKeyId}/${scope}`],
    ['X-Amz-Date', stamp],
    ['X-Amz-Expires', String(Math.max(1, Math.min(604_800, Math.floor(options.expiresIn))))],
    ...(config.sessionToken ? ([['X-Amz-Security-Token', config.sessionToken]] as [string, string][]) : []),
    ['X-Amz-SignedHeaders', 'host'],
    ['x-id', 'GetObject'],
  ];
  if (options.filename !== undefined)
    query.push(['response-content-disposition', `attachment; filename*=UTF-8''${encode(options.filename)}`]);
  const queryString = (pairs: [string, string][]) =>
    pairs
      .map(([k, v]) => [encode(k), encode(v)] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
  const canonicalQuery = queryString(query);
  const canonicalRequest = ['GET', path, canonicalQuery, `host:${host}\n`, 'host', 'UNSIGNED-PAYLOAD'].join(
    '\n',
  );
  const toSign = ['AWS4-HMAC-SHA256', stamp, scope, sha256(canonicalRequest)].join('\n');
  const signature = createHmac('sha256', signingKey(config.secretAccessKey, day, config.region))
    .update(toSign)
    .digest('hex');
  return `${origin}${path}?${queryString([...query, ['X-Amz-Signature', signature]])}`;
};
