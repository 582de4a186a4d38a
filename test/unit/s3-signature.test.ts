/**
 * The local S3 server's Signature Version 4 check (infra/local/s3-signature.ts) on plain data, with
 * a fixed clock: presigned URLs made by `presign.ts` (which a unit test holds equal to the SDK's
 * presigner), the boundaries of their life, and the forms S3 refuses before any signature is
 * computed. The server itself, with the SDK and fetch: test/integration/s3-local.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { payloadMismatch, s3ErrorXml, verifySignature } from '#infra/local/s3-signature.ts';
import { presignGet } from '#shared/storage/presign.ts';

const keys = { accessKeyId: 'local', secretAccessKey: 'local-secret', region: 'us-east-1' };
const SIGNED_AT = new Date('2026-11-29T10:00:00Z');
const HOST = '127.0.0.1:4569';

/** A presigned GET of `key` as the server receives it. */
const presigned = (key = 'table/abc', expiresIn = 900, change: (url: URL) => void = () => {}) => {
  const url = new URL(
    presignGet({ bucket: 'attachments', endpoint: `http://${HOST}`, ...keys }, key, {
      expiresIn,
      now: SIGNED_AT,
    }),
  );
  change(url);
  return { method: 'GET', path: url.pathname, query: url.search.slice(1), rawHeaders: ['Host', HOST] };
};
const at = (seconds: number) => SIGNED_AT.getTime() + seconds * 1000;
const codeOf = (verdict: ReturnType<typeof verifySignature>) =>
  verdict.ok ? 'ok' : `${verdict.refusal.status} ${verdict.refusal.code}`;

describe('verifySignature: presigned URLs', () => {
  it.each([
    [0, 'ok'],
    [900, 'ok'],
    [901, '403 AccessDenied'],
    // signed in the future: within the 15 minutes of allowed skew, or not yet valid
    [-15 * 60, 'ok'],
    [-15 * 60 - 1, '403 AccessDenied'],
  ])('a URL valid 900 s, used %i s after its X-Amz-Date: %s', (seconds, answer) => {
    expect(codeOf(verifySignature(presigned(), keys, at(seconds)))).toBe(answer);
  });

  it('says a URL used after it expired has expired, with its times', () => {
    const verdict = verifySignature(presigned('table/abc', 60), keys, at(61));

    expect(verdict).toEqual({
      ok: false,
      refusal: {
        status: 403,
        code: 'AccessDenied',
        message: 'Request has expired',
        extra: {
          'X-Amz-Expires': '60',
          Expires: '2026-11-29T10:01:00.000Z',
          ServerTime: '2026-11-29T10:01:01.000Z',
        },
      },
    });
  });

  it.each<[string, (url: URL) => void, string]>([
    [
      'its signature changed',
      (u) => u.searchParams.set('X-Amz-Signature', '0'.repeat(64)),
      '403 SignatureDoesNotMatch',
    ],
    [
      'a longer life written in',
      (u) => u.searchParams.set('X-Amz-Expires', '3600'),
      '403 SignatureDoesNotMatch',
    ],
    ['another key', (u) => (u.pathname = '/attachments/table/abd'), '403 SignatureDoesNotMatch'],
    ['a parameter added', (u) => u.searchParams.set('versionId', '1'), '403 SignatureDoesNotMatch'],
    [
      'an unknown access key',
      (u) => u.searchParams.set('X-Amz-Credential', 'other/20261129/us-east-1/s3/aws4_request'),
      '403 InvalidAccessKeyId',
    ],
    [
      'another region',
      (u) => u.searchParams.set('X-Amz-Credential', 'local/20261129/eu-west-1/s3/aws4_request'),
      '400 AuthorizationQueryParametersError',
    ],
    [
      'a credential of another day',
      (u) => u.searchParams.set('X-Amz-Credential', 'local/20261128/us-east-1/s3/aws4_request'),
      '400 AuthorizationQueryParametersError',
    ],
    [
      'a life over 7 days',
      (u) => u.searchParams.set('X-Amz-Expires', '604801'),
      '400 AuthorizationQueryParametersError',
    ],
    ['no X-Amz-Date', (u) => u.searchParams.delete('X-Amz-Date'), '400 AuthorizationQueryParametersError'],
    [
      'another algorithm',
      (u) => u.searchParams.set('X-Amz-Algorithm', 'AWS4-HMAC-SHA1'),
      '400 AuthorizationQueryParametersError',
    ],
    ['host not signed', (u) => u.searchParams.set('X-Amz-SignedHeaders', 'x-amz-date'), '403 AccessDenied'],
    ['a Signature Version 2 parameter', (u) => u.searchParams.set('Signature', 'abc'), '400 InvalidRequest'],
  ])('refuses a URL with %s', (_, change, answer) => {
    expect(codeOf(verifySignature(presigned('table/abc', 900, change), keys, at(1)))).toBe(answer);
  });

  it('takes keys whose names need encoding, as the URL writes them', () => {
    expect(codeOf(verifySignature(presigned("dir/a b+c(d)!'é*~.txt"), keys, at(1)))).toBe('ok');
  });

  it('refuses an x-amz-* header the URL did not sign, and a signed header sent with another value', () => {
    const request = presigned();

    const extra = { ...request, rawHeaders: [...request.rawHeaders, 'X-Amz-Acl', 'public-read'] };
    const otherHost = { ...request, rawHeaders: ['Host', 'localhost:4569'] };

    expect(verifySignature(extra, keys, at(1))).toMatchObject({
      ok: false,
      refusal: { code: 'AccessDenied', extra: { HeadersNotSigned: 'x-amz-acl' } },
    });
    expect(codeOf(verifySignature(otherHost, keys, at(1)))).toBe('403 SignatureDoesNotMatch');
  });
});

describe('verifySignature: requests S3 refuses before any signature', () => {
  const bare = { method: 'GET', path: '/attachments/table/abc', query: '', rawHeaders: ['Host', HOST] };

  it.each([
    ['no signature at all', bare, '403 AccessDenied'],
    [
      'a Signature Version 2 header',
      { ...bare, rawHeaders: ['Host', HOST, 'Authorization', 'AWS local:abc'] },
      '400 InvalidRequest',
    ],
    [
      'both a header and query parameters',
      { ...presigned(), rawHeaders: ['Host', HOST, 'Authorization', 'AWS4-HMAC-SHA256 Credential=x'] },
      '400 InvalidArgument',
    ],
    [
      'a header without x-amz-content-sha256',
      {
        ...bare,
        rawHeaders: [
          'Host',
          HOST,
          'Authorization',
          'AWS4-HMAC-SHA256 Credential=local/20261129/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00',
        ],
      },
      '400 InvalidRequest',
    ],
    [
      'a header that names no signature',
      {
        ...bare,
        rawHeaders: [
          'Host',
          HOST,
          'Authorization',
          'AWS4-HMAC-SHA256 Credential=local/20261129/us-east-1/s3/aws4_request',
        ],
      },
      '400 AuthorizationHeaderMalformed',
    ],
  ])('%s: %s', (_, request, answer) => {
    expect(codeOf(verifySignature(request, keys, at(1)))).toBe(answer);
  });
});

describe('payloadMismatch and s3ErrorXml', () => {
  it('compares a body with the SHA-256 signed for it', () => {
    const sha256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

    expect(payloadMismatch({ signed: true, sha256 }, Buffer.alloc(0))).toBeUndefined();
    expect(payloadMismatch({ signed: false }, Buffer.from('anything'))).toBeUndefined();
    expect(payloadMismatch({ signed: true, sha256 }, Buffer.from('x'))).toMatchObject({
      status: 400,
      code: 'XAmzContentSHA256Mismatch',
    });
  });

  it('writes S3’s error document, escaped', () => {
    expect(
      s3ErrorXml({ status: 403, code: 'AccessDenied', message: 'a <b> & "c"', extra: { Key: "d'e" } }, 'R1'),
    ).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>a &lt;b&gt; &amp; &quot;c&quot;</Message><Key>d&apos;e</Key><RequestId>R1</RequestId></Error>',
    );
  });
});
