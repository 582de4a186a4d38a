import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The local S3-compatible server (`@20minutes/s3rver`, in this process) that `npm start` and the
 * tests run for attachments, so the same SDK code that talks to the stage's bucket talks to it
 * through `AWS_ENDPOINT_URL_S3`. Files are kept in `directory` (`.local/s3`), or in a temporary
 * folder removed at stop (`--in-memory`, tests). The bucket is made at start with the same CORS
 * rule as the stage's (browsers upload with `PUT` to a presigned URL).
 *
 * The server accepts this process's access key (`AWS_ACCESS_KEY_ID`, `local` locally) and checks a
 * presigned URL's expiry, but not every signature as S3 does: the URLs' form is checked by unit
 * tests against the SDK's own presigner instead.
 */

/** The bucket name locally (the stage's bucket has a generated name). */
export const LOCAL_BUCKET = 'attachments';
const CORS = `<CORSConfiguration>
  <CORSRule>
    <AllowedOrigin>*</AllowedOrigin>
    <AllowedMethod>GET</AllowedMethod>
    <AllowedMethod>PUT</AllowedMethod>
    <AllowedMethod>HEAD</AllowedMethod>
    <AllowedHeader>*</AllowedHeader>
    <ExposeHeader>ETag</ExposeHeader>
    <MaxAgeSeconds>3000</MaxAgeSeconds>
  </CORSRule>
</CORSConfiguration>`;

export interface S3Local {
  endpoint: string;
  bucket: string;
  directory: string;
  stop: () => Promise<void>;
}

/** Starts the server on 127.0.0.1 (`port` 0: any free one), with the bucket made. */
export const startS3Local = async (options: { directory?: string; port?: number } = {}): Promise<S3Local> => {
  const temporary = options.directory === undefined;
  const directory = options.directory ?? (await mkdtemp(join(tmpdir(), 's3-local-')));
  await mkdir(directory, { recursive: true });
  const { default: S3rver } = await import('@20minutes/s3rver');
  // the server knows one key pair of its own: it also accepts this process's (the SDK signs with them)
  const accessKeyId = process.env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = process.env.AWS_SECRET_ACCESS_KEY;
  if (accessKeyId && secretAccessKey) {
    const { default: account } = await import('@20minutes/s3rver/lib/models/account.js');
    account.DUMMY_ACCOUNT.createKeyPair(accessKeyId, secretAccessKey);
  }
  const server = new S3rver({
    address: '127.0.0.1',
    port: options.port ?? 0,
    silent: true,
    directory,
    // the SDK signs a bucket's path as `/bucket/`, the server checks `/bucket`: bucket calls would
    // fail its check (it never verifies presigned URLs as S3 does anyway, see above)
    allowMismatchedSignatures: true,
    configureBuckets: [{ name: LOCAL_BUCKET, configs: [CORS] }],
  });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket: LOCAL_BUCKET,
    directory,
    stop: async () => {
      await server.close();
      if (temporary) await rm(directory, { recursive: true, force: true });
    },
  };
};

/** The environment that points the SDK and the configuration at a local server. */
export const s3Environment = (s3: Pick<S3Local, 'endpoint' | 'bucket'>): Record<string, string> => ({
  AWS_ENDPOINT_URL_S3: s3.endpoint,
  ATTACHMENTS_BUCKET: s3.bucket,
});
