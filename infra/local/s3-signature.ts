import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signature Version 4 as S3 checks it, for the local S3-compatible server (`s3-local.ts`): a
 * request is either presigned (the `X-Amz-*` query parameters) or signed in its `Authorization`
 * header, as the SDK sends it; anything else is refused as S3 refuses it for a private bucket.
 * Checked: the algorithm, the access key and session token (this process's), the credential scope
 * (its day is the request's, the region this process's, the service `s3`), the time (a presigned
 * URL's `X-Amz-Expires`, a header-signed request's 15-minute skew), that `host` and every `x-amz-*`
 * header are signed, and the signature over the request as received: method, path, query, the
 * signed headers' values (so a `content-type` or `content-length` other than signed fails) and the
 * payload hash. A payload given as a SHA-256 is compared with the body by the caller once it has
 * the body (`payloadMismatch`). Pure: the time is an argument.
 */

/** A request as the server received it. */
export interface ReceivedRequest {
  method: string;
  /** The path as sent, percent-encoding and all. */
  path: string;
  /** The query as sent, without `?`. */
  query: string;
  /** Header names and values, in the order sent (`IncomingMessage.rawHeaders`). */
  rawHeaders: readonly string[];
}

/** Whose signatures are accepted. */
export interface SigningKeys {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  region: string;
}

/** An error as S3 answers it: the status, its XML `Code` and `Message`, and any further elements. */
export interface S3Refusal {
  status: number;
  code: string;
  message: string;
  extra?: Record<string, string>;
}

/** What the signature says of the body: nothing (unsigned), or its SHA-256 (hex) to compare. */
export type Payload = { signed: false } | { signed: true; sha256: string };

export type Verdict = { ok: true; payload: Payload } | { ok: false; refusal: S3Refusal };

const ALGORITHM = 'AWS4-HMAC-SHA256';
/** Longest a presigned URL lives (7 days) and the skew allowed a header-signed request. */
const MAX_EXPIRES = 604_800;
const MAX_SKEW_MS = 15 * 60_000;

const refuse = (status: number, code: string, message: string, extra?: Record<string, string>) =>
  ({ ok: false, refusal: { status, code, message, ...(extra ? { extra } : {}) } }) as const;

const ACCESS_DENIED = 'Access Denied';
const MISMATCH =
  'The request signature we calculated does not match the signature you provided. Check your key and signing method.';

/** RFC 3986 encoding as SigV4 wants it: every byte but `A-Za-z0-9-_.~` (and `/` in a path). */
const encode = (text: string): string =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Percent-decoding that keeps text it cannot decode as it is (S3 then computes on that). */
const decode = (text: string): string => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

const sha256Hex = (data: string): string => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data).digest();

/** The query's pairs, decoded (`+` is a plus, as S3 reads a signed query). */
const queryPairs = (query: string): [string, string][] =>
  query
    .split('&')
    .filter((part) => part !== '')
    .map((part) => {
      const at = part.indexOf('=');
      return at === -1 ? [decode(part), ''] : [decode(part.slice(0, at)), decode(part.slice(at + 1))];
    });

/** Headers by lower-case name, repeated ones joined with `,` as SigV4 joins them. */
const headersOf = (rawHeaders: readonly string[]): Map<string, string> => {
  const headers = new Map<string, string>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase();
    const value = (rawHeaders[i + 1] as string).trim().replace(/\s+/g, ' ');
    const before = headers.get(name);
    headers.set(name, before === undefined ? value : `${before},${value}`);
  }
  return headers;
};

/** The canonical request of SigV4: method, path, query (without the signature), signed headers, payload. */
export const canonicalRequest = (
  request: ReceivedRequest,
  signedHeaders: readonly string[],
  payloadHash: string,
  leaveOut?: string,
): string => {
  const path = request.path
    .split('/')
    .map((segment) => encode(decode(segment)))
    .join('/');
  const query = queryPairs(request.query)
    .filter(([name]) => name !== leaveOut)
    .map(([name, value]) => [encode(name), encode(value)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const headers = headersOf(request.rawHeaders);
  const canonicalHeaders = signedHeaders.map((name) => `${name}:${headers.get(name) ?? ''}\n`).join('');
  return [request.method, path, query, canonicalHeaders, signedHeaders.join(';'), payloadHash].join('\n');
};

/** `20261129T101500Z` as a time, or undefined. */
const parseAmzDate = (text: string | undefined): number | undefined => {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text ?? '');
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  const at = Date.UTC(y, mo - 1, d, h, mi, s);
  return Number.isNaN(at) ? undefined : at;
};

/** The parts of a signature, wherever it was written. */
interface Signed {
  presigned: boolean;
  credential: string;
  signedHeaders: string;
  signature: string;
  amzDate: string | undefined;
  payloadHash: string;
  sessionToken: string | undefined;
  expires?: string;
}

/** Whether a request is for S3 at all signed, and how; a refusal for a form S3 does not take. */
const signedParts = (request: ReceivedRequest): Signed | S3Refusal | undefined => {
  const headers = headersOf(request.rawHeaders);
  const query = new Map(queryPairs(request.query));
  const authorization = headers.get('authorization');
  const inQuery =
    query.has('X-Amz-Algorithm') || query.has('X-Amz-Signature') || query.has('X-Amz-Credential');
  const v2 = query.has('Signature') || query.has('AWSAccessKeyId') || /^AWS /.test(authorization ?? '');
  if (v2)
    return {
      status: 400,
      code: 'InvalidRequest',
      message: 'The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.',
    };
  if (authorization !== undefined && inQuery)
    return {
      status: 400,
      code: 'InvalidArgument',
      message:
        'Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified',
    };
  if (inQuery) {
    const missing = [
      'X-Amz-Algorithm',
      'X-Amz-Credential',
      'X-Amz-Date',
      'X-Amz-Expires',
      'X-Amz-SignedHeaders',
      'X-Amz-Signature',
    ].filter((name) => !query.get(name));
    if (missing.length)
      return {
        status: 400,
        code: 'AuthorizationQueryParametersError',
        message: `Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters (missing: ${missing.join(', ')}).`,
      };
    if (query.get('X-Amz-Algorithm') !== ALGORITHM)
      return {
        status: 400,
        code: 'AuthorizationQueryParametersError',
        message: 'X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"',
      };
    return {
      presigned: true,
      credential: query.get('X-Amz-Credential') as string,
      signedHeaders: query.get('X-Amz-SignedHeaders') as string,
      signature: query.get('X-Amz-Signature') as string,
      amzDate: query.get('X-Amz-Date'),
      // a presigned URL signs no payload unless it names a hash
      payloadHash: query.get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD',
      sessionToken: query.get('X-Amz-Security-Token') ?? headers.get('x-amz-security-token'),
      expires: query.get('X-Amz-Expires') as string,
    };
  }
  if (authorization === undefined) return undefined;
  const malformed = (why: string): S3Refusal => ({
    status: 400,
    code: 'AuthorizationHeaderMalformed',
    message: `The authorization header is malformed; ${why}`,
  });
  if (!authorization.startsWith(`${ALGORITHM} `))
    return malformed('the authorization mechanism must be AWS4-HMAC-SHA256');
  const fields = new Map(
    authorization
      .slice(ALGORITHM.length + 1)
      .split(',')
      .map((part) => {
        const at = part.indexOf('=');
        return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as [string, string];
      }),
  );
  const [credential, signedHeaders, signature] = ['Credential', 'SignedHeaders', 'Signature'].map((k) =>
    fields.get(k),
  );
  if (!credential || !signedHeaders || !signature)
    return malformed('it must name a Credential, SignedHeaders and a Signature');
  const payloadHash = headers.get('x-amz-content-sha256');
  if (payloadHash === undefined)
    return {
      status: 400,
      code: 'InvalidRequest',
      message: 'Missing required header for this request: x-amz-content-sha256',
    };
  return {
    presigned: false,
    credential,
    signedHeaders,
    signature,
    amzDate: headers.get('x-amz-date'),
    payloadHash,
    sessionToken: headers.get('x-amz-security-token'),
  };
};

/** The signing key of a day, region and service. */
const signingKey = (secret: string, day: string, region: string, service: string): Buffer =>
  hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), service), 'aws4_request');

/**
 * Whether S3 would take a request's signature: a refusal as S3 words it, or what the signature
 * says of the body. `OPTIONS` (a CORS preflight) is not for this check: S3 answers it unsigned.
 */
export const verifySignature = (request: ReceivedRequest, keys: SigningKeys, now: number): Verdict => {
  const parts = signedParts(request);
  if (parts === undefined) return refuse(403, 'AccessDenied', ACCESS_DENIED);
  if (!('presigned' in parts)) return { ok: false, refusal: parts };
  const badParameter = (message: string) =>
    parts.presigned
      ? refuse(400, 'AuthorizationQueryParametersError', message)
      : refuse(400, 'AuthorizationHeaderMalformed', `The authorization header is malformed; ${message}`);

  // Credential: <key>/<day>/<region>/s3/aws4_request
  const scopeParts = parts.credential.split('/');
  if (scopeParts.length !== 5)
    return badParameter(
      `the Credential ${parts.credential} is not <key>/<date>/<region>/<service>/aws4_request`,
    );
  const [accessKeyId, day, region, service, terminal] = scopeParts as [
    string,
    string,
    string,
    string,
    string,
  ];
  if (accessKeyId !== keys.accessKeyId)
    return refuse(
      403,
      'InvalidAccessKeyId',
      'The AWS Access Key Id you provided does not exist in our records.',
      {
        AWSAccessKeyId: accessKeyId,
      },
    );
  const at = parseAmzDate(parts.amzDate);
  if (at === undefined)
    return parts.presigned
      ? badParameter("X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"")
      : refuse(403, 'AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header');
  if (day !== parts.amzDate?.slice(0, 8))
    return badParameter(`the credential's date ${day} is not the request's ${parts.amzDate?.slice(0, 8)}`);
  if (region !== keys.region)
    return badParameter(`the region '${region}' is wrong; expecting '${keys.region}'`);
  if (service !== 's3' || terminal !== 'aws4_request')
    return badParameter(`the credential must be scoped to the service s3 and end in aws4_request`);

  if (parts.sessionToken !== keys.sessionToken)
    return parts.sessionToken === undefined
      ? refuse(403, 'AccessDenied', ACCESS_DENIED)
      : refuse(400, 'InvalidToken', 'The provided token is malformed or otherwise invalid.');

  // time: a presigned URL lives X-Amz-Expires seconds from X-Amz-Date; a signed request 15 minutes either way
  if (parts.presigned) {
    const expires = Number(parts.expires);
    if (!/^\d+$/.test(parts.expires ?? '') || expires < 1)
      return badParameter('X-Amz-Expires must be a positive whole number of seconds');
    if (expires > MAX_EXPIRES)
      return badParameter('X-Amz-Expires must be less than a week (in seconds) that is; 604800');
    if (now > at + expires * 1000)
      return refuse(403, 'AccessDenied', 'Request has expired', {
        'X-Amz-Expires': String(expires),
        Expires: new Date(at + expires * 1000).toISOString(),
        ServerTime: new Date(now).toISOString(),
      });
    if (at - now > MAX_SKEW_MS) return refuse(403, 'AccessDenied', 'Request is not valid yet');
  } else if (Math.abs(now - at) > MAX_SKEW_MS)
    return refuse(
      403,
      'RequestTimeTooSkewed',
      'The difference between the request time and the current time is too large.',
      {
        RequestTime: parts.amzDate as string,
        ServerTime: new Date(now).toISOString(),
        MaxAllowedSkewMilliseconds: String(MAX_SKEW_MS),
      },
    );

  // headers: host and every x-amz-* one must be signed, named in order, lower case
  const signedHeaders = parts.signedHeaders.split(';');
  const sorted = [...signedHeaders].sort();
  if (signedHeaders.some((name, i) => name !== sorted[i] || name !== name.toLowerCase() || name === ''))
    return badParameter('SignedHeaders must be lower-case names in order, separated by ";"');
  const present = [...headersOf(request.rawHeaders).keys()];
  const unsigned = present.filter(
    (name) => (name === 'host' || name.startsWith('x-amz-')) && !signedHeaders.includes(name),
  );
  if (unsigned.length)
    return refuse(403, 'AccessDenied', 'There were headers present in the request which were not signed', {
      HeadersNotSigned: unsigned.join(', '),
    });

  // the payload: a hash to compare, or unsigned; the streaming forms' chunk signatures are not checked here
  const payload = parts.payloadHash;
  if (
    /^STREAMING-AWS4-HMAC-SHA256-PAYLOAD/.test(payload) ||
    payload === 'STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD'
  )
    return refuse(
      501,
      'NotImplemented',
      'The local S3 server does not verify chunk signatures: sign the payload or send it unsigned',
    );
  if (
    payload !== 'UNSIGNED-PAYLOAD' &&
    payload !== 'STREAMING-UNSIGNED-PAYLOAD-TRAILER' &&
    !/^[0-9a-f]{64}$/.test(payload)
  )
    return refuse(
      400,
      'InvalidArgument',
      'x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER or a valid sha256 value.',
    );

  const canonical = canonicalRequest(
    request,
    signedHeaders,
    payload,
    parts.presigned ? 'X-Amz-Signature' : undefined,
  );
  const scope = `${day}/${region}/${service}/${terminal}`;
  const stringToSign = [ALGORITHM, parts.amzDate, scope, sha256Hex(canonical)].join('\n');
  const expected = createHmac('sha256', signingKey(keys.secretAccessKey, day, region, service))
    .update(stringToSign)
    .digest();
  const given = /^[0-9a-f]{64}$/.test(parts.signature)
    ? Buffer.from(parts.signature, 'hex')
    : Buffer.alloc(0);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return refuse(403, 'SignatureDoesNotMatch', MISMATCH, {
      AWSAccessKeyId: accessKeyId,
      StringToSign: stringToSign,
      SignatureProvided: parts.signature,
      CanonicalRequest: canonical,
    });
  return {
    ok: true,
    payload: /^[0-9a-f]{64}$/.test(payload) ? { signed: true, sha256: payload } : { signed: false },
  };
};

/** The refusal of a body whose SHA-256 is not the one signed, or undefined when it is. */
export const payloadMismatch = (payload: Payload, body: Buffer): S3Refusal | undefined => {
  if (!payload.signed) return undefined;
  const computed = createHash('sha256').update(body).digest('hex');
  return computed === payload.sha256
    ? undefined
    : {
        status: 400,
        code: 'XAmzContentSHA256Mismatch',
        message: "The provided 'x-amz-content-sha256' header does not match what was computed.",
        extra: { ClientComputedContentSHA256: payload.sha256, S3ComputedContentSHA256: computed },
      };
};

const escapeXml = (text: string): string =>
  text.replace(
    /[<>&'"]/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] as string,
  );

/** The XML body of an S3 error. */
export const s3ErrorXml = (refusal: S3Refusal, requestId: string): string =>
  [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<Error>',
    `<Code>${escapeXml(refusal.code)}</Code>`,
    `<Message>${escapeXml(refusal.message)}</Message>`,
    ...Object.entries(refusal.extra ?? {}).map(([k, v]) => `<${k}>${escapeXml(v)}</${k}>`),
    `<RequestId>${escapeXml(requestId)}</RequestId>`,
    '</Error>',
  ].join('');
