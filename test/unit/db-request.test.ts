import { describe, expect, it } from 'vitest';
import { hashSecret, parsePersonalToken } from '#shared/auth/personal-token.ts';
import { isUnavailable, TABLE, type TransactOp, toTransactItem } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { toAccessTokenItem } from '#shared/entities/access-tokens.ts';
import { newAccessToken, tokenPatch, toTokenInfo } from '#shared/users/access-tokens.ts';

const KEY = { pk: 'SPACE#spcAAAAAAAAAAAAAAAA', sk: 'SPACE' };

describe('toTransactItem', () => {
  it('the table is the one of the environment', () => {
    expect(TABLE).toBe('unit-test-table');
  });

  it.each<[string, TransactOp, unknown]>([
    [
      'a plain put',
      { put: { ...KEY, name: 'Plans' } },
      {
        Put: {
          TableName: 'unit-test-table',
          Item: { ...KEY, name: 'Plans' },
          ConditionExpression: undefined,
          ExpressionAttributeNames: undefined,
          ExpressionAttributeValues: undefined,
        },
      },
    ],
    [
      'a conditional put',
      { put: { ...KEY }, condition: 'attribute_not_exists(pk)' },
      {
        Put: {
          TableName: 'unit-test-table',
          Item: { ...KEY },
          ConditionExpression: 'attribute_not_exists(pk)',
          ExpressionAttributeNames: undefined,
          ExpressionAttributeValues: undefined,
        },
      },
    ],
    [
      'an update with names, values and a condition',
      {
        update: {
          key: KEY,
          update: 'SET #name = :name',
          condition: 'attribute_exists(pk)',
          names: { '#name': 'name' },
          values: { ':name': 'New' },
        },
      },
      {
        Update: {
          TableName: 'unit-test-table',
          Key: KEY,
          UpdateExpression: 'SET #name = :name',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#name': 'name' },
          ExpressionAttributeValues: { ':name': 'New' },
        },
      },
    ],
    [
      'a plain delete',
      { delete: KEY },
      {
        Delete: {
          TableName: 'unit-test-table',
          Key: KEY,
          ConditionExpression: undefined,
          ExpressionAttributeNames: undefined,
          ExpressionAttributeValues: undefined,
        },
      },
    ],
    [
      'a conditional delete',
      { delete: KEY, condition: '#role = :from', names: { '#role': 'role' }, values: { ':from': 'owner' } },
      {
        Delete: {
          TableName: 'unit-test-table',
          Key: KEY,
          ConditionExpression: '#role = :from',
          ExpressionAttributeNames: { '#role': 'role' },
          ExpressionAttributeValues: { ':from': 'owner' },
        },
      },
    ],
    [
      'a condition check',
      { check: KEY, condition: 'attribute_exists(pk) AND attribute_not_exists(deletedTime)' },
      {
        ConditionCheck: {
          TableName: 'unit-test-table',
          Key: KEY,
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deletedTime)',
          ExpressionAttributeNames: undefined,
          ExpressionAttributeValues: undefined,
        },
      },
    ],
  ])('%s', (_what, op, expected) => {
    expect(toTransactItem(op)).toStrictEqual(expected);
  });

  it('an update ignores keys of the item that are not the key', () => {
    const item = toTransactItem({ update: { key: KEY, update: 'REMOVE x' } });

    expect(item.Update?.Key).toStrictEqual(KEY);
  });
});

describe('isUnavailable', () => {
  it.each([
    [
      'ProvisionedThroughputExceededException by name',
      { name: 'ProvisionedThroughputExceededException' },
      true,
    ],
    ['ThrottlingException by name', { name: 'ThrottlingException' }, true],
    ['ServiceUnavailableException by name', { name: 'ServiceUnavailableException' }, true],
    ['RequestTimeoutException by name', { name: 'RequestTimeoutException' }, true],
    ['ECONNREFUSED by code', { name: 'Error', code: 'ECONNREFUSED' }, true],
    ['ECONNRESET by name', { name: 'ECONNRESET' }, true],
    ['ConditionalCheckFailedException', { name: 'ConditionalCheckFailedException' }, false],
    ['TransactionCanceledException', { name: 'TransactionCanceledException' }, false],
    ['ValidationException', { name: 'ValidationException' }, false],
    ['a TypeError', new TypeError('x'), false],
    ['undefined', undefined, false],
    ['null', null, false],
    ['a string', 'ECONNREFUSED', false],
  ])('%s → %s', (_what, error, expected) => {
    expect(isUnavailable(error)).toBe(expected);
  });
});

describe('keys', () => {
  it.each([
    ['user', keys.user('usrA'), { pk: 'USER#usrA', sk: 'PROFILE' }],
    [
      'userEmail (lower-cased)',
      keys.userEmail('Ada@Example.TEST'),
      { pk: 'EMAIL#ada@example.test', sk: 'EMAIL' },
    ],
    ['accessToken', keys.accessToken('usrA', 'accB'), { pk: 'USER#usrA', sk: 'TOKEN#accB' }],
    ['accessTokensOf', keys.accessTokensOf('usrA'), { pk: 'USER#usrA', skPrefix: 'TOKEN#' }],
    ['space', keys.space('spcA'), { pk: 'SPACE#spcA', sk: 'SPACE' }],
    ['member', keys.member('spcA', 'usrB'), { pk: 'SPACE#spcA', sk: 'MEMBER#usrB' }],
    ['membersOf', keys.membersOf('spcA'), { pk: 'SPACE#spcA', skPrefix: 'MEMBER#' }],
    ['userSpace', keys.userSpace('usrA', 'spcB'), { pk: 'USER#usrA', sk: 'SPACE#spcB' }],
    ['spacesOf', keys.spacesOf('usrA'), { pk: 'USER#usrA', skPrefix: 'SPACE#' }],
    [
      'unread notification',
      keys.notification('usrA', 'notB', 'unread'),
      { pk: 'USER#usrA', sk: 'NOTIF#U#notB' },
    ],
    ['read notification', keys.notification('usrA', 'notB', 'read'), { pk: 'USER#usrA', sk: 'NOTIF#R#notB' }],
    ['notificationsOf read', keys.notificationsOf('usrA', 'read'), { pk: 'USER#usrA', skPrefix: 'NOTIF#R#' }],
    ['notificationCounter', keys.notificationCounter('usrA'), { pk: 'USER#usrA', sk: 'NOTIF_COUNT' }],
  ])('%s', (_what, actual, expected) => {
    expect(actual).toStrictEqual(expected);
  });

  it.each(['unread', 'read'] as const)('notificationIdOf reads the id back from a %s sort key', (state) => {
    expect(keys.notificationIdOf(keys.notification('usrA', 'notAAAAAAAAAAAAAAAA', state).sk)).toBe(
      'notAAAAAAAAAAAAAAAA',
    );
  });

  it('the space partition is the partition of the space item', () => {
    expect(keys.spacePartition('spcA')).toBe(keys.space('spcA').pk);
  });
});

describe('access token request builders', () => {
  const now = new Date('2026-11-22T08:15:00.000Z');

  it('a new token is stored with the hash of the returned token, never the secret', () => {
    const { accessToken, token } = newAccessToken({
      userId: 'usrAAAAAAAAAAAAAAAA',
      name: 'CI',
      scopes: ['record|read'],
      spaceIds: null,
      expiredTime: '2027-01-01T00:00:00.000Z',
      now,
    });

    const item = toAccessTokenItem(accessToken);
    const parsed = parsePersonalToken(token);
    expect(parsed?.tokenId).toBe(item.id);
    expect(item).toStrictEqual({
      ...keys.accessToken('usrAAAAAAAAAAAAAAAA', String(item.id)),
      type: 'accessToken',
      id: item.id,
      userId: 'usrAAAAAAAAAAAAAAAA',
      name: 'CI',
      description: null,
      scopes: ['record|read'],
      spaceIds: null,
      baseIds: null,
      expiredTime: '2027-01-01T00:00:00.000Z',
      createdTime: '2026-11-22T08:15:00.000Z',
      lastUsedTime: null,
      secretHash: hashSecret(parsed?.secret ?? ''),
    });
    expect(JSON.stringify(item)).not.toContain(parsed?.secret);
  });

  it('toTokenInfo shows neither the hash nor the keys', () => {
    const { accessToken } = newAccessToken({
      userId: 'usrAAAAAAAAAAAAAAAA',
      name: 'CI',
      scopes: ['record|read'],
      baseIds: ['bseAAAAAAAAAAAAAAAA'],
      expiredTime: '2027-01-01T00:00:00.000Z',
      now,
    });

    expect(toTokenInfo(accessToken)).toStrictEqual({
      id: accessToken.id,
      name: 'CI',
      description: null,
      scopes: ['record|read'],
      spaceIds: null,
      baseIds: ['bseAAAAAAAAAAAAAAAA'],
      expiredTime: '2027-01-01T00:00:00.000Z',
      createdTime: '2026-11-22T08:15:00.000Z',
      lastUsedTime: null,
      hasFullAccess: false,
    });
  });

  it.each([
    ['nothing', {}, { sets: [], names: {}, values: {} }],
    [
      'a name',
      { name: 'New' },
      { sets: ['#name = :name'], names: { '#name': 'name' }, values: { ':name': 'New' } },
    ],
    [
      'a null limit list removes the limit',
      { spaceIds: null },
      { sets: ['#spaceIds = :spaceIds'], names: { '#spaceIds': 'spaceIds' }, values: { ':spaceIds': null } },
    ],
    [
      'undefined fields are left alone',
      { name: undefined, description: 'd' },
      {
        sets: ['#description = :description'],
        names: { '#description': 'description' },
        values: { ':description': 'd' },
      },
    ],
    [
      'scopes and base limits',
      { scopes: ['record|read' as const], baseIds: ['bseAAAAAAAAAAAAAAAA'] },
      {
        sets: ['#scopes = :scopes', '#baseIds = :baseIds'],
        names: { '#scopes': 'scopes', '#baseIds': 'baseIds' },
        values: { ':scopes': ['record|read'], ':baseIds': ['bseAAAAAAAAAAAAAAAA'] },
      },
    ],
  ])('tokenPatch of %s', (_what, patch, expected) => {
    expect(tokenPatch(patch)).toStrictEqual(expected);
  });
});
