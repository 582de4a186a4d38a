import { describe, expect, it } from 'vitest';
import {
  type AccessToken,
  accessTokenOf,
  refreshTokenUpdate,
  toAccessTokenItem,
} from '#shared/entities/access-tokens.ts';
import {
  changeRoleOps,
  type Member,
  memberOf,
  putMembershipOps,
  removeMembershipOps,
  toMemberItem,
  toUserSpaceItem,
  type UserSpace,
  userSpaceOf,
} from '#shared/entities/members.ts';
import { ownerCountOp, putSpaceOp, type Space, spaceOf, toSpaceItem } from '#shared/entities/spaces.ts';
import { claimEmailOp, toUserItem, type User, userOf } from '#shared/entities/users.ts';

const USR = 'usr0000000000000001';
const TOK = 'tok0000000000000001';
const SPC = 'spc0000000000000001';
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-02T00:00:00.000Z';

describe('user items', () => {
  const user: User = { id: USR, name: 'Ada', email: 'ada@example.test', isAdmin: false, createdTime: T0 };

  it('reads back a user written by toUserItem unchanged', () => {
    const item = toUserItem(user);
    expect(item).toMatchObject({ pk: `USER#${USR}`, sk: 'PROFILE', type: 'user' });
    expect(userOf(item)).toStrictEqual(user);
  });

  it('reads a user as stored today', () => {
    const stored = {
      pk: `USER#${USR}`,
      sk: 'PROFILE',
      type: 'user',
      id: USR,
      name: 'Ada',
      email: 'ada@example.test',
      isAdmin: true,
      createdTime: T0,
    };
    expect(userOf(stored)).toStrictEqual({ ...user, isAdmin: true });
    expect(toUserItem(userOf(stored))).toStrictEqual(stored);
  });

  it('reads a user stored without createdTime or isAdmin as a non-admin without createdTime', () => {
    const stored = {
      pk: `USER#${USR}`,
      sk: 'PROFILE',
      type: 'user',
      id: USR,
      name: 'Ada',
      email: 'a@b.test',
    };
    expect(userOf(stored)).toStrictEqual({ id: USR, name: 'Ada', email: 'a@b.test', isAdmin: false });
  });

  it('claims an email in lower case, only when nobody holds it', () => {
    expect(claimEmailOp('Ada@Example.test', USR)).toStrictEqual({
      put: { pk: 'EMAIL#ada@example.test', sk: 'EMAIL', type: 'userEmail', userId: USR },
      condition: 'attribute_not_exists(pk)',
    });
  });
});

describe('access token items', () => {
  const token: AccessToken = {
    id: TOK,
    userId: USR,
    name: 'CI',
    description: null,
    scopes: ['record|read', 'table|read'],
    spaceIds: null,
    baseIds: ['bse0000000000000001'],
    expiredTime: '2027-01-01T00:00:00.000Z',
    createdTime: T0,
    lastUsedTime: null,
    secretHash: 'hash',
  };

  it('reads back a token written by toAccessTokenItem unchanged', () => {
    const item = toAccessTokenItem(token);
    expect(item).toMatchObject({ pk: `USER#${USR}`, sk: `TOKEN#${TOK}`, type: 'accessToken' });
    expect(accessTokenOf(item)).toStrictEqual(token);
  });

  it('reads a token as stored today, used and refreshed', () => {
    const stored = {
      pk: `USER#${USR}`,
      sk: `TOKEN#${TOK}`,
      type: 'accessToken',
      id: TOK,
      userId: USR,
      name: 'CI',
      description: 'deploys',
      scopes: ['record|read'],
      spaceIds: [SPC],
      baseIds: null,
      expiredTime: '2027-01-01T00:00:00.000Z',
      createdTime: T0,
      lastUsedTime: T1,
      secretHash: 'hash',
      refreshedTime: T1,
    };
    expect(accessTokenOf(stored)).toStrictEqual({
      id: TOK,
      userId: USR,
      name: 'CI',
      description: 'deploys',
      scopes: ['record|read'],
      spaceIds: [SPC],
      baseIds: null,
      expiredTime: '2027-01-01T00:00:00.000Z',
      createdTime: T0,
      lastUsedTime: T1,
      refreshedTime: T1,
      secretHash: 'hash',
    });
    expect(toAccessTokenItem(accessTokenOf(stored))).toStrictEqual(stored);
  });

  it('reads absent limits and times as null, and drops scopes outside the contract', () => {
    const stored = { id: TOK, userId: USR, name: 'x', scopes: ['record|read', 'space|fly'], secretHash: 'h' };
    expect(accessTokenOf(stored)).toMatchObject({
      description: null,
      scopes: ['record|read'],
      spaceIds: null,
      baseIds: null,
      lastUsedTime: null,
    });
  });

  it('reads back a refresh count, and leaves it absent when never counted', () => {
    const counted = { ...token, refreshedTime: T1, refreshCount: 3 };
    expect(accessTokenOf(toAccessTokenItem(counted))).toStrictEqual(counted);
    expect(accessTokenOf(toAccessTokenItem(token))).not.toHaveProperty('refreshCount');
  });

  it('builds the refresh: new secret and expiry, stamped and counted in one update', () => {
    expect(
      refreshTokenUpdate(USR, TOK, {
        secretHash: 'h2',
        expiredTime: '2027-02-01T00:00:00.000Z',
        now: new Date(T1),
      }),
    ).toStrictEqual({
      key: { pk: `USER#${USR}`, sk: `TOKEN#${TOK}` },
      update:
        'SET secretHash = :h, expiredTime = :e, refreshedTime = :now, refreshCount = if_not_exists(refreshCount, :zero) + :one',
      condition: 'attribute_exists(pk)',
      values: { ':h': 'h2', ':e': '2027-02-01T00:00:00.000Z', ':now': T1, ':zero': 0, ':one': 1 },
    });
  });
});

describe('space items', () => {
  const space: Space = { id: SPC, name: 'Space', ownerCount: 1, createdTime: T0, createdBy: USR };

  it('reads back a space written by toSpaceItem unchanged', () => {
    const item = toSpaceItem(space);
    expect(item).toMatchObject({ pk: `SPACE#${SPC}`, sk: 'SPACE', type: 'space' });
    expect(spaceOf(item)).toStrictEqual(space);
  });

  it('reads a space as stored today, renamed and in the trash', () => {
    const stored = {
      pk: `SPACE#${SPC}`,
      sk: 'SPACE',
      type: 'space',
      id: SPC,
      name: 'Renamed',
      ownerCount: 2,
      createdTime: T0,
      createdBy: USR,
      lastModifiedTime: T1,
      deletedTime: T1,
      deletedBy: USR,
      trashId: 'trs0000000000000001',
    };
    expect(spaceOf(stored)).toStrictEqual({
      id: SPC,
      name: 'Renamed',
      ownerCount: 2,
      createdTime: T0,
      createdBy: USR,
      lastModifiedTime: T1,
      deletedTime: T1,
      deletedBy: USR,
      trashId: 'trs0000000000000001',
    });
    expect(toSpaceItem(spaceOf(stored))).toStrictEqual(stored);
  });

  it('creates a space only under a free id', () => {
    expect(putSpaceOp(space)).toStrictEqual({
      put: toSpaceItem(space),
      condition: 'attribute_not_exists(pk)',
    });
  });

  it.each([
    [-1, 'attribute_exists(pk) AND ownerCount > :one', { ':d': -1, ':one': 1 }],
    [2, 'attribute_exists(pk) AND attribute_not_exists(deletedTime)', { ':d': 2 }],
  ])('changes the owner count by %i under its condition', (delta, condition, values) => {
    expect(ownerCountOp(SPC, delta)).toStrictEqual({
      update: { key: { pk: `SPACE#${SPC}`, sk: 'SPACE' }, update: 'ADD ownerCount :d', condition, values },
    });
  });
});

describe('membership items', () => {
  const member: Member = {
    spaceId: SPC,
    userId: USR,
    userName: 'Ada',
    email: 'ada@example.test',
    role: 'editor',
    createdTime: T0,
  };
  const mirror: UserSpace = { spaceId: SPC, userId: USR, role: 'editor' };

  it('reads back a membership and its mirror unchanged', () => {
    expect(memberOf(toMemberItem(member))).toStrictEqual(member);
    expect(userSpaceOf(toUserSpaceItem(mirror))).toStrictEqual(mirror);
  });

  it('reads a membership and its mirror as stored today', () => {
    const stored = {
      pk: `SPACE#${SPC}`,
      sk: `MEMBER#${USR}`,
      type: 'member',
      spaceId: SPC,
      userId: USR,
      userName: 'Ada',
      email: 'ada@example.test',
      role: 'editor',
      createdTime: T0,
    };
    const storedMirror = {
      pk: `USER#${USR}`,
      sk: `SPACE#${SPC}`,
      type: 'userSpace',
      spaceId: SPC,
      userId: USR,
      role: 'editor',
    };
    expect(memberOf(stored)).toStrictEqual(member);
    expect(userSpaceOf(storedMirror)).toStrictEqual(mirror);
    expect(putMembershipOps(member)).toStrictEqual([
      { put: stored, condition: 'attribute_not_exists(pk)' },
      { put: storedMirror },
    ]);
  });

  it('reads an item with a role that is none of the roles as no membership', () => {
    expect(memberOf({ ...toMemberItem(member), role: 'admin' })).toBeUndefined();
    expect(userSpaceOf({ ...toUserSpaceItem(mirror), role: undefined })).toBeUndefined();
  });

  it('changes a role only from the role read, in the membership and its mirror', () => {
    expect(changeRoleOps(SPC, USR, 'editor', 'viewer')).toStrictEqual([
      {
        update: {
          key: { pk: `SPACE#${SPC}`, sk: `MEMBER#${USR}` },
          update: 'SET #role = :role',
          condition: '#role = :from',
          names: { '#role': 'role' },
          values: { ':role': 'viewer', ':from': 'editor' },
        },
      },
      {
        update: {
          key: { pk: `USER#${USR}`, sk: `SPACE#${SPC}` },
          update: 'SET #role = :role',
          names: { '#role': 'role' },
          values: { ':role': 'viewer' },
        },
      },
    ]);
  });

  it('removes a membership only with the role read, and its mirror', () => {
    expect(removeMembershipOps(SPC, USR, 'owner')).toStrictEqual([
      {
        delete: { pk: `SPACE#${SPC}`, sk: `MEMBER#${USR}` },
        condition: '#role = :from',
        names: { '#role': 'role' },
        values: { ':from': 'owner' },
      },
      { delete: { pk: `USER#${USR}`, sk: `SPACE#${SPC}` } },
    ]);
  });
});
