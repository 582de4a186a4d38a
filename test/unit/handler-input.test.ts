import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { beforeEach, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '#shared/http/handler.ts';
import { UNAUTHORIZED } from '#test/support/answers.ts';
import { call } from '#test/support/invoke.ts';
import { batchGetFrom, signedInUser } from './support/fake-table.ts';

const ddbMock = mockClient(DynamoDBDocumentClient);

const NOT_JSON = { message: 'The body is not valid JSON', status: 400, code: 'validation_error' };
const UNSUPPORTED = {
  message: 'The body must be JSON (Content-Type: application/json)',
  status: 415,
  code: 'unsupported_media_type',
};
const TOO_LARGE = { message: 'The request body is larger than 6 MB', status: 413, code: 'payload_too_large' };
const SPACE_ID = 'spcAAAAAAAAAAAAAAAA';

let user: ReturnType<typeof signedInUser>;

beforeEach(() => {
  ddbMock.reset();
  user = signedInUser();
  ddbMock.on(BatchGetCommand).callsFake(batchGetFrom(user.items));
  ddbMock.on(QueryCommand).resolves({ Items: [] });
  ddbMock.on(TransactWriteCommand).resolves({});
});

describe('body errors', () => {
  it.each([
    ['a truncated object', '{"name":'],
    ['single quotes', "{'name':'x'}"],
    ['a trailing comma', '{"name":"x",}'],
    ['plain words', 'hello'],
  ])('invalid JSON (%s) is a 400 validation_error naming the body', async (_what, rawBody) => {
    const res = await call('create-space', { token: user.auth, rawBody });

    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual(NOT_JSON);
    expect(ddbMock).not.toHaveReceivedCommand(TransactWriteCommand);
  });

  it.each([
    'text/plain',
    'text/plain; charset=utf-8',
    'application/xml',
    'application/x-www-form-urlencoded',
  ])('a body sent as %s is a 415 unsupported_media_type', async (type) => {
    const res = await call('create-space', {
      token: user.auth,
      rawBody: '{"name":"Plans"}',
      headers: { 'content-type': type },
    });

    expect(res.status).toBe(415);
    expect(res.body).toStrictEqual(UNSUPPORTED);
  });

  it('a binary body (base64-encoded by API Gateway) is a 415', async () => {
    const res = await call('create-space', {
      token: user.auth,
      rawBody: '{"name":"Plans"}',
      headers: { 'content-type': 'application/octet-stream' },
    });

    expect(res.status).toBe(415);
    expect(res.body).toStrictEqual(UNSUPPORTED);
  });

  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON',
    'application/merge-patch+json',
  ])('a JSON body sent as %s is accepted', async (type) => {
    const res = await call('create-space', {
      token: user.auth,
      rawBody: '{"name":"Plans"}',
      headers: { 'content-type': type },
    });

    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Plans' });
  });

  it('a JSON body with an empty Content-Type is accepted', async () => {
    const res = await call('create-space', {
      token: user.auth,
      rawBody: '{"name":"Plans"}',
      headers: { 'content-type': '' },
    });

    expect(res.status).toBe(201);
  });

  it('a body over 6 MB is a 413 payload_too_large', async () => {
    const rawBody = JSON.stringify({ name: 'x'.repeat(MAX_BODY_BYTES) });

    const res = await call('create-space', { token: user.auth, rawBody });

    expect(MAX_BODY_BYTES).toBe(6 * 1024 * 1024);
    expect(res.status).toBe(413);
    expect(res.body).toStrictEqual(TOO_LARGE);
  });

  it('a body of exactly 6 MB is read (and then validated)', async () => {
    const rawBody = `{"name":"${'x'.repeat(MAX_BODY_BYTES - 11)}"}`;

    const res = await call('create-space', { token: user.auth, rawBody });

    expect(Buffer.byteLength(rawBody)).toBe(MAX_BODY_BYTES);
    expect(res.status).toBe(400);
    expect(res.body.details).toStrictEqual([
      { path: 'body.name', message: 'Too big: expected string to have <=255 characters' },
    ]);
  });

  it('a body over 6 MB on a route without a body schema is a 413 too', async () => {
    const res = await call('get-current-user', { token: user.auth, rawBody: 'x'.repeat(MAX_BODY_BYTES + 1) });

    expect(res.status).toBe(413);
    expect(res.body).toStrictEqual(TOO_LARGE);
  });

  it.each([
    [
      'an empty name',
      { name: '' },
      [{ path: 'body.name', message: 'Too small: expected string to have >=1 characters' }],
    ],
    [
      'a blank name (trimmed)',
      { name: '   ' },
      [{ path: 'body.name', message: 'Too small: expected string to have >=1 characters' }],
    ],
    [
      'a number',
      { name: 5 },
      [{ path: 'body.name', message: 'Invalid input: expected string, received number' }],
    ],
    [
      'a list for the body',
      [],
      [{ path: 'body', message: 'Invalid input: expected object, received array' }],
    ],
    [
      'a string for the body',
      'Plans',
      [{ path: 'body', message: 'Invalid input: expected object, received string' }],
    ],
  ])('%s is a 400 listing the issue as {path, message}', async (_what, body, details) => {
    const res = await call('create-space', { token: user.auth, body });

    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({
      message: `Invalid ${details[0]?.path}: ${details[0]?.message}`,
      status: 400,
      code: 'validation_error',
      details,
    });
    expect(ddbMock).not.toHaveReceivedCommand(TransactWriteCommand);
  });

  it('an empty body on a route whose fields are all optional is an empty object (default name)', async () => {
    const res = await call('create-space', { token: user.auth });

    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Space' });
  });

  it('a missing required field is named in the details', async () => {
    const res = await call('update-space', { token: user.auth, params: { spaceId: SPACE_ID }, body: {} });

    expect(res.status).toBe(400);
    expect(res.body.details).toStrictEqual([
      { path: 'body.name', message: 'Invalid input: expected string, received undefined' },
    ]);
  });
});

describe('path and query errors', () => {
  it.each([
    ['nope', 'must be an id starting with spc'],
    ['spc123', 'must be spc followed by 16 letters or digits; this one has 3 after spc'],
    ['spcAAAAAAAAAAAAAAAAA', 'must be spc followed by 16 letters or digits; this one has 17 after spc'],
    ['bseAAAAAAAAAAAAAAAA', 'must be an id starting with spc'],
    [
      'spcAAAAAAAAAAAAAAA-',
      'must be spc followed by 16 letters or digits; this one has another character after spc',
    ],
  ])('update-space with spaceId %s is a 400 naming path.spaceId: %s', async (spaceId, why) => {
    const res = await call('update-space', {
      token: user.auth,
      params: { spaceId },
      body: { name: 'New' },
    });

    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({
      message: `Invalid path.spaceId: ${why}`,
      status: 400,
      code: 'validation_error',
      details: [{ path: 'path.spaceId', message: why }],
    });
  });

  it.each([
    ['a value outside the enum', 'notifyStates=maybe'],
    ['a repeated single value', 'notifyStates=read&notifyStates=unread'],
  ])('list-notifications with %s is a 400 naming query.notifyStates', async (_what, query) => {
    const res = await call('list-notifications', { token: user.auth, query });

    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
    expect(res.body.details).toStrictEqual([{ path: 'query.notifyStates', message: expect.any(String) }]);
  });

  it('list-notifications reads a one-element bracketed list as the single value', async () => {
    const res = await call('list-notifications', { token: user.auth, query: 'notifyStates[]=read' });

    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ notifications: [], nextCursor: null });
  });

  it.each(['constructor=x', '__proto__[]=x', 'toString=a&hasOwnProperty=b'])(
    'a query key named like an Object member (%s) is ignored, not a 500',
    async (query) => {
      const res = await call('list-notifications', { token: user.auth, query });

      expect(res.status).toBe(200);
    },
  );
});

describe('authentication comes first', () => {
  it('no token and an invalid body is a 401, not a 400', async () => {
    const res = await call('create-space', { rawBody: '{"name":' });

    expect(res.status).toBe(401);
    expect(res.body).toStrictEqual(UNAUTHORIZED);
    expect(ddbMock.calls()).toHaveLength(0);
  });

  it.each([
    ['a body failing the schema', { body: { name: '' } }],
    ['a non-JSON content type', { rawBody: 'x', headers: { 'content-type': 'text/plain' } }],
    ['a body over 6 MB', { rawBody: 'x'.repeat(MAX_BODY_BYTES + 1) }],
  ])('no token and %s is a 401', async (_what, options) => {
    const res = await call('create-space', options);

    expect(res.status).toBe(401);
    expect(res.body).toStrictEqual(UNAUTHORIZED);
  });

  it('no token and a bad path parameter is a 401', async () => {
    const res = await call('update-space', { params: { spaceId: 'nope' }, body: { name: 'x' } });

    expect(res.status).toBe(401);
  });

  it('a well-formed token that is not stored, with an invalid body, is a 401', async () => {
    const stranger = signedInUser();

    const res = await call('create-space', { token: stranger.auth, rawBody: '{"name":' });

    expect(res.status).toBe(401);
    expect(res.body).toStrictEqual(UNAUTHORIZED);
  });

  it('a valid token of a non-admin on an admin route is a 403 even with an invalid body', async () => {
    const res = await call('create-user', { token: user.auth, body: { email: 'not an email' } });

    expect(res.status).toBe(403);
    expect(res.body).toStrictEqual({
      message: 'only an instance admin may do this',
      status: 403,
      code: 'restricted_resource',
    });
  });
});
