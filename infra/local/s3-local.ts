import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bodyUpTo } from './request-body.ts';
import {
  payloadMismatch,
  type S3Refusal,
  type SigningKeys,
  s3ErrorXml,
  verifySignature,
} from './s3-signature.ts';

/**
 * The local S3-compatible server that `npm start` and the tests run for attachments, so the same
 * SDK code that talks to the stage's bucket talks to it through `AWS_ENDPOINT_URL_S3`. Files are
 * kept in `directory` (`.local/s3`), or in a temporary folder removed at stop (`--in-memory`,
 * tests). The bucket is made at start with the same CORS rule as the stage's (browsers upload with
 * `PUT` to a presigned URL).
 *
 * Two parts: `@20minutes/s3rver` stores and serves the objects, listening on a Unix socket of its
 * own (nothing else reaches it), and in front of it, on 127.0.0.1, a proxy that checks every
 * request's Signature Version 4 as S3 does (`s3-signature.ts`) against this process's credentials
 * (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION`): presigned URLs
 * (signature, `X-Amz-Expires`, signed headers such as `content-type` and `content-length`) and
 * header-signed SDK requests (signature, clock skew, the body's SHA-256 when one is signed). What S3
 * refuses it answers with S3's XML error (403 `AccessDenied` for an unsigned request to the private
 * bucket, 403 `SignatureDoesNotMatch`, 400 `XAmzContentSHA256Mismatch`…); CORS preflights
 * (`OPTIONS`) go through unsigned, as S3 answers them. s3rver's own signature comparison stays
 * off (`allowMismatchedSignatures`: it canonicalizes a bucket's path as `/bucket` where the SDK
 * signs `/bucket/`, so it would refuse good bucket calls); the proxy's check is the one that counts.
 * Not checked: chunk signatures of streamed SigV4 payloads (refused as `NotImplemented`; the SDK
 * does not send them), bucket policies and ACLs (the one key may do everything, as the service's
 * role may on its bucket). A body whose SHA-256 is signed is held in memory to be checked before it
 * is stored (up to 1 GiB).
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

/** s3rver's own key pair, the one it knows without being told: used when the process has none. */
const S3RVER_KEY = 'S3RVER';
/** The largest body held in memory to compare with its signed SHA-256. */
const MAX_HASHED_BODY = 1024 * 1024 * 1024;

export interface S3Local {
  endpoint: string;
  bucket: string;
  directory: string;
  stop: () => Promise<void>;
}

/** The credentials whose signatures the server takes: this process's, as the SDK finds them in the environment. */
const processKeys = (): SigningKeys => {
  const accessKeyId = process.env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = process.env.AWS_SECRET_ACCESS_KEY;
  const sessionToken = process.env.AWS_SESSION_TOKEN || undefined;
  return {
    accessKeyId: accessKeyId && secretAccessKey ? accessKeyId : S3RVER_KEY,
    secretAccessKey: accessKeyId && secretAccessKey ? secretAccessKey : S3RVER_KEY,
    ...(sessionToken ? { sessionToken } : {}),
    region: process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION || 'us-east-1',
  };
};

/** Answers an S3 error, once the request's body is read and dropped (a client still sending would see a reset). */
const answerRefusal = (req: IncomingMessage, res: ServerResponse, refusal: S3Refusal): void => {
  const requestId = randomBytes(8).toString('hex').toUpperCase();
  const send = () => {
    const body = s3ErrorXml(refusal, requestId);
    res.writeHead(refusal.status, {
      'content-type': 'application/xml',
      'x-amz-request-id': requestId,
      // the bucket's CORS rule allows any origin: S3 applies it to errors too, so a browser can read them
      ...(req.headers.origin ? { 'access-control-allow-origin': '*', vary: 'Origin' } : {}),
      ...(req.method === 'HEAD' ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
  if (req.readableEnded) {
    send();
    return;
  }
  req.on('end', send).on('error', () => res.destroy());
  req.resume();
};

/** Hands a checked request to s3rver on its socket and its answer back. */
const forward = (req: IncomingMessage, res: ServerResponse, inner: Upstream, body?: Buffer): void => {
  const { expect: _, connection: __, 'keep-alive': ___, ...headers } = req.headers;
  if (body) {
    headers['content-length'] = String(body.length);
    delete headers['transfer-encoding'];
  }
  const sent = httpRequest(
    { socketPath: inner.socketPath, agent: inner.agent, method: req.method, path: req.url, headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  sent.on('error', () => {
    if (!res.headersSent) res.writeHead(502).end();
    else res.destroy();
  });
  if (body) sent.end(body);
  else req.pipe(sent);
};

/**
 * Where the proxy forwards: the server's socket, through an agent of its own, destroyed at stop
 * (kept-alive connections would hold the server's close, and the process, open forever).
 */
interface Upstream {
  socketPath: string;
  agent: Agent;
}

/** Checks a request's signature as S3 would, then forwards it, or answers S3's error. */
const verifyAndForward = async (
  req: IncomingMessage,
  res: ServerResponse,
  upstream: Upstream,
  keys: SigningKeys,
): Promise<void> => {
  // a CORS preflight is answered unsigned, as S3 answers it (from the bucket's CORS rule)
  if (req.method === 'OPTIONS') return forward(req, res, upstream);
  const url = req.url ?? '/';
  const at = url.indexOf('?');
  const verdict = verifySignature(
    {
      method: req.method ?? 'GET',
      path: at === -1 ? url : url.slice(0, at),
      query: at === -1 ? '' : url.slice(at + 1),
      rawHeaders: req.rawHeaders,
    },
    keys,
    Date.now(),
  );
  if (!verdict.ok) return answerRefusal(req, res, verdict.refusal);
  if (!verdict.payload.signed) return forward(req, res, upstream);
  const body = await bodyUpTo(req, MAX_HASHED_BODY);
  if (!body)
    return answerRefusal(req, res, {
      status: 400,
      code: 'EntityTooLarge',
      message: `The local S3 server holds at most ${MAX_HASHED_BODY} bytes of a body whose SHA-256 is signed: send larger ones with UNSIGNED-PAYLOAD`,
    });
  const mismatch = payloadMismatch(verdict.payload, body);
  if (mismatch) return answerRefusal(req, res, mismatch);
  forward(req, res, upstream, body);
};

/** Starts the server on 127.0.0.1 (`port` 0: any free one), with the bucket made. */
export const startS3Local = async (options: { directory?: string; port?: number } = {}): Promise<S3Local> => {
  const temporary = options.directory === undefined;
  const directory = options.directory ?? (await mkdtemp(join(tmpdir(), 's3-local-')));
  await mkdir(directory, { recursive: true });
  const socketDirectory = await mkdtemp(join(tmpdir(), 's3-local-socket-'));
  const socketPath = join(socketDirectory, 's3rver.sock');
  const keys = processKeys();
  const { default: S3rver } = await import('@20minutes/s3rver');
  // s3rver still looks the key up (it answers `InvalidAccessKeyId` for one it does not know)
  const { default: account } = await import('@20minutes/s3rver/lib/models/account.js');
  account.DUMMY_ACCOUNT.createKeyPair(keys.accessKeyId, keys.secretAccessKey);
  const server = new S3rver({
    // a Unix socket: only the proxy reaches it
    port: socketPath,
    silent: true,
    directory,
    allowMismatchedSignatures: true,
    configureBuckets: [{ name: LOCAL_BUCKET, configs: [CORS] }],
  });
  await server.run();
  const upstream: Upstream = { socketPath, agent: new Agent({ keepAlive: true }) };
  const proxy = createServer((req, res) => {
    verifyAndForward(req, res, upstream, keys).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) =>
    proxy.once('error', reject).listen(options.port ?? 0, '127.0.0.1', () => resolve()),
  );
  const { port } = proxy.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket: LOCAL_BUCKET,
    directory,
    stop: async () => {
      await new Promise<void>((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      });
      // a response the client never read keeps its connection busy, and a server's close waits for it
      upstream.agent.destroy();
      (
        server as unknown as { httpServer?: { closeAllConnections?: () => void } }
      ).httpServer?.closeAllConnections?.();
      await server.close();
      await rm(socketDirectory, { recursive: true, force: true });
      if (temporary) await rm(directory, { recursive: true, force: true });
    },
  };
};

/** The environment that points the SDK and the configuration at a local server. */
export const s3Environment = (s3: Pick<S3Local, 'endpoint' | 'bucket'>): Record<string, string> => ({
  AWS_ENDPOINT_URL_S3: s3.endpoint,
  ATTACHMENTS_BUCKET: s3.bucket,
});
