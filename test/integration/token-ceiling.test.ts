import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { type Scope, scopesFor } from '#shared/auth/scopes.ts';
import { getItems } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { randomBase62 } from '#shared/ids.ts';
import type { HandlerName } from '#shared/routes.ts';
import { createOperatorToken } from '#shared/users/access-tokens.ts';
import { newUser } from '#test/support/fixtures.ts';
import { type CallOptions, type CallResult, call } from '#test/support/invoke.ts';
import { bearer, inDays, storedToken } from '#test/support/tokens.ts';

/**
 * auth-errors.md, "Tokens are a ceiling": a narrowed token × every token, admin and plugin
 * route. Each case is an attempt to get more than the calling token has (403 and nothing
 * stored, or a 400 for an empty limit list) or a control within the ceiling (2xx).
 */

type User = Awaited<ReturnType<typeof newUser>>;

interface Token {
  id: string;
  auth: string;
}

const tokenFor = async (
  user: User,
  scopes: readonly Scope[],
  limits: { spaceIds?: string[]; baseIds?: string[] } = {},
  expiredTime = inDays(7),
): Promise<Token> => {
  const created = await createOperatorToken(user.id, {
    name: 'narrow',
    scopes: [...scopes],
    ...limits,
    expiredTime,
  });
  return { id: created.id, auth: bearer(created.token) };
};

/** A user (admin or not) with two spaces, a base in each, and a plugin of their own. */
const world = async (isAdmin = true) => {
  const user = await newUser({ isAdmin });
  const space = async () =>
    (await call('create-space', { token: user.auth, body: { name: 'S' } })).body.id as string;
  const [spaceA, spaceB] = [await space(), await space()];
  const base = async (spaceId: string) =>
    (await call('create-base', { token: user.auth, body: { spaceId } })).body.id as string;
  const [baseA, baseB] = [await base(spaceA), await base(spaceB)];
  const plugin = await call('create-plugin', {
    token: user.auth,
    body: { name: 'P', logo: 'https://example.test/p.png', positions: ['dashboard'] },
  });
  expect(plugin.status).toBe(201);
  return { user, spaceA, spaceB, baseA, baseB, pluginId: plugin.body.id as string };
};
type World = Awaited<ReturnType<typeof world>>;

/** The stored rights and text of a token (not `lastUsedTime`, which any use of it may touch). */
const storedRights = async (userId: string, tokenId: string) => {
  const item = await storedToken(userId, tokenId);
  if (!item) return undefined;
  const { lastUsedTime: _, ...rest } = item;
  return rest;
};

const tokensOf = async (user: User) =>
  (await call('list-access-tokens', { token: user.auth })).body as { id: string }[];

const READ: Scope[] = ['record|read', 'space|read'];
const ADMIN_NARROW: Scope[] = ['record|read'];

interface Case {
  /** What the narrowed token tries. */
  name: string;
  route: HandlerName;
  /** Builds the narrowed token and the call; may return a check to run after the answer. */
  act: (w: World) => Promise<{ as: Token; options: CallOptions; after?: (res: CallResult) => Promise<void> }>;
  status: number;
  /** Held: an escalation refused (4xx). Control: a call within the ceiling that must work. */
  kind: 'held' | 'control';
}

/** A temporary token minted with `parent` (authenticated as its parent, whose id it carries). */
const tempOf = async (parent: Token): Promise<Token> => {
  const res = await call('create-temp-token', { token: parent.auth });
  expect(res.status).toBe(200);
  return { id: parent.id, auth: bearer(res.body.accessToken as string) };
};

const freshEmail = () => `${randomBase62(12).toLowerCase()}@example.test`;

/** The stored first token of a user made by `POST /admin/users` (its text names both ids). */
const firstTokenOf = async (res: CallResult) => {
  const [, tokenId, userId] = (res.body.token as string).split('_') as [string, string, string];
  return storedToken(userId, tokenId);
};

const NO_ADMIN_FROM_HERE =
  'creating an instance admin needs an unlimited personal token of an instance admin: not a temporary token, nor one limited to spaces or bases';

/** Before, at and after the calling token's expiry (milliseconds added to it). */
const LIFETIMES = [
  ['a day before', -86_400_000],
  ['the same instant as', 0],
  ['a millisecond after', 1],
] as const;

const shifted = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

/** The refusal of an expiry later than the calling token's. */
const tooLate = (callerExpiry: string) =>
  `expiredTime must not be later than the calling token's expiry (${callerExpiry})`;

const tokenBody = (body: Record<string, unknown>) => ({
  body: { name: 'minted', expiredTime: inDays(1), ...body },
});

/** The user's token count did not change: nothing was stored. */
const noNewToken = async (w: World, before: number) => expect(await tokensOf(w.user)).toHaveLength(before);

const CASES: Case[] = [
  // POST /access-token
  ...(
    [
      ['every scope', READ, {}, () => ({ scopes: scopesFor(true) })],
      ['one scope more', READ, {}, () => ({ scopes: [...READ, 'space|delete'] })],
      ['instance|admin', READ, {}, () => ({ scopes: ['instance|admin'] })],
      ['no limit from a space-limited token', READ, { space: true }, () => ({ scopes: READ })],
      [
        'another space from a space-limited token',
        READ,
        { space: true },
        (w: World) => ({ scopes: READ, spaceIds: [w.spaceB] }),
      ],
      [
        'a base of another space from a space-limited token',
        READ,
        { space: true },
        (w: World) => ({ scopes: READ, baseIds: [w.baseB] }),
      ],
      [
        "its base's space from a base-limited token",
        READ,
        { base: true },
        (w: World) => ({ scopes: READ, spaceIds: [w.spaceA] }),
      ],
    ] as const
  ).map(
    ([what, scopes, limit, body]): Case => ({
      name: `POST /access-token with ${what}`,
      route: 'create-access-token',
      status: 403,
      kind: 'held',
      act: async (w) => {
        const as = await tokenFor(w.user, scopes, {
          ...('space' in limit ? { spaceIds: [w.spaceA] } : {}),
          ...('base' in limit ? { baseIds: [w.baseA] } : {}),
        });
        const before = (await tokensOf(w.user)).length;
        return { as, options: tokenBody(body(w)), after: () => noNewToken(w, before) };
      },
    }),
  ),
  {
    name: 'POST /access-token with spaceIds: [] (never "no limit")',
    route: 'create-access-token',
    status: 400,
    kind: 'held',
    act: async (w) => ({
      as: await tokenFor(w.user, READ, { spaceIds: [w.spaceA] }),
      options: tokenBody({ scopes: READ, spaceIds: [] }),
    }),
  },
  {
    name: 'POST /access-token with baseIds: [] from an unlimited token',
    route: 'create-access-token',
    status: 400,
    kind: 'held',
    act: async (w) => ({
      as: await tokenFor(w.user, READ),
      options: tokenBody({ scopes: READ, baseIds: [] }),
    }),
  },
  {
    name: 'POST /access-token with fewer scopes and a base inside its space',
    route: 'create-access-token',
    status: 201,
    kind: 'control',
    act: async (w) => ({
      as: await tokenFor(w.user, READ, { spaceIds: [w.spaceA] }),
      options: tokenBody({ scopes: ['record|read'], baseIds: [w.baseA] }),
      after: async (res) => {
        expect(res.body).toMatchObject({ scopes: ['record|read'], spaceIds: null, baseIds: [w.baseA] });
      },
    }),
  },

  // PATCH /access-token/{id}
  ...(
    [
      ['itself to every scope', READ, {}, () => ({ scopes: scopesFor(true) })],
      ['itself to no space limit', READ, { space: true }, () => ({ spaceIds: null })],
      ['itself to another space', READ, { space: true }, (w: World) => ({ spaceIds: [w.spaceA, w.spaceB] })],
    ] as const
  ).map(
    ([what, scopes, limit, body]): Case => ({
      name: `PATCH /access-token/{id} of ${what}`,
      route: 'update-access-token',
      status: 403,
      kind: 'held',
      act: async (w) => {
        const as = await tokenFor(w.user, scopes, 'space' in limit ? { spaceIds: [w.spaceA] } : {});
        const before = await storedRights(w.user.id, as.id);
        return {
          as,
          options: { params: { accessTokenId: as.id }, body: body(w) },
          after: async () => expect(await storedRights(w.user.id, as.id)).toEqual(before),
        };
      },
    }),
  ),
  {
    name: 'PATCH /access-token/{id} of itself to spaceIds: []',
    route: 'update-access-token',
    status: 400,
    kind: 'held',
    act: async (w) => {
      const as = await tokenFor(w.user, READ, { spaceIds: [w.spaceA] });
      return { as, options: { params: { accessTokenId: as.id }, body: { spaceIds: [] } } };
    },
  },
  {
    name: 'PATCH /access-token/{id} renaming a stronger sibling',
    route: 'update-access-token',
    status: 403,
    kind: 'held',
    act: async (w) => {
      const strong = await tokenFor(w.user, scopesFor(true));
      const before = await storedRights(w.user.id, strong.id);
      return {
        as: await tokenFor(w.user, READ),
        options: { params: { accessTokenId: strong.id }, body: { name: 'renamed' } },
        after: async () => expect(await storedRights(w.user.id, strong.id)).toEqual(before),
      };
    },
  },
  {
    name: 'PATCH /access-token/{id} narrowing itself',
    route: 'update-access-token',
    status: 200,
    kind: 'control',
    act: async (w) => {
      const as = await tokenFor(w.user, READ, { spaceIds: [w.spaceA] });
      return {
        as,
        options: { params: { accessTokenId: as.id }, body: { scopes: ['record|read'], baseIds: [w.baseA] } },
        after: async (res) =>
          expect(res.body).toMatchObject({
            scopes: ['record|read'],
            spaceIds: [w.spaceA],
            baseIds: [w.baseA],
          }),
      };
    },
  },

  // Lifetimes: a token gives (creates, refreshes to) or edits only tokens that expire no later
  // than itself. The caller expires in three days; each route is tried a day before, at and a
  // millisecond after that.
  ...LIFETIMES.flatMap(([when, offset]): Case[] => {
    const held = offset > 0;
    return [
      {
        name: `POST /access-token expiring ${when} the calling token`,
        route: 'create-access-token',
        status: held ? 400 : 201,
        kind: held ? 'held' : 'control',
        act: async (w) => {
          const expiry = inDays(3);
          const as = await tokenFor(w.user, READ, {}, expiry);
          const before = (await tokensOf(w.user)).length;
          const asked = shifted(expiry, offset);
          return {
            as,
            options: tokenBody({ scopes: READ, expiredTime: asked }),
            after: async (res) => {
              if (!held) return expect(res.body.expiredTime).toBe(asked);
              expect(res.body.message).toBe(tooLate(expiry));
              await noNewToken(w, before);
            },
          };
        },
      },
      {
        name: `POST /access-token/{id}/refresh of itself to ${when} its expiry`,
        route: 'refresh-access-token',
        status: held ? 400 : 200,
        kind: held ? 'held' : 'control',
        act: async (w) => {
          const expiry = inDays(3);
          const as = await tokenFor(w.user, READ, {}, expiry);
          const before = await storedRights(w.user.id, as.id);
          const asked = shifted(expiry, offset);
          return {
            as,
            options: { params: { accessTokenId: as.id }, body: { expiredTime: asked } },
            after: async (res) => {
              if (!held) return expect(res.body.expiredTime).toBe(asked);
              expect(res.body.message).toBe(tooLate(expiry));
              // Nothing changed: same expiry, same secret (the old text still works).
              expect(await storedRights(w.user.id, as.id)).toEqual(before);
              expect((await call('get-current-user', { token: as.auth })).status).toBe(200);
            },
          };
        },
      },
      {
        name: `PATCH /access-token/{id} of a sibling expiring ${when} the calling token`,
        route: 'update-access-token',
        status: held ? 400 : 200,
        kind: held ? 'held' : 'control',
        act: async (w) => {
          const expiry = inDays(3);
          const sibling = await tokenFor(w.user, READ, {}, shifted(expiry, offset));
          const before = await storedRights(w.user.id, sibling.id);
          return {
            as: await tokenFor(w.user, READ, {}, expiry),
            options: { params: { accessTokenId: sibling.id }, body: { name: 'renamed' } },
            after: async (res) => {
              if (!held) return expect(res.body.name).toBe('renamed');
              expect(res.body.message).toBe(
                `token ${sibling.id} expires ${shifted(expiry, offset)}, later than the calling token's expiry (${expiry}): a token edits only tokens that expire no later than itself`,
              );
              expect(await storedRights(w.user.id, sibling.id)).toEqual(before);
            },
          };
        },
      },
    ];
  }),
  {
    name: 'POST /access-token from a token expiring in two minutes, living until 2099',
    route: 'create-access-token',
    status: 400,
    kind: 'held',
    act: async (w) => {
      const expiry = new Date(Date.now() + 120_000).toISOString();
      const as = await tokenFor(w.user, READ, {}, expiry);
      const before = (await tokensOf(w.user)).length;
      return {
        as,
        options: tokenBody({ scopes: READ, expiredTime: '2099-01-01T00:00:00.000Z' }),
        after: async (res) => {
          expect(res.body).toEqual({
            message: tooLate(expiry),
            status: 400,
            code: 'validation_error',
            details: [{ path: 'body.expiredTime', message: tooLate(expiry) }],
          });
          await noNewToken(w, before);
        },
      };
    },
  },

  // POST /access-token/{id}/refresh and DELETE /access-token/{id}
  {
    name: 'POST /access-token/{id}/refresh of a stronger sibling (would reveal its new text)',
    route: 'refresh-access-token',
    status: 403,
    kind: 'held',
    act: async (w) => {
      const strong = await tokenFor(w.user, scopesFor(true));
      return {
        as: await tokenFor(w.user, READ),
        options: { params: { accessTokenId: strong.id }, body: { expiredTime: inDays(2) } },
        // The sibling's old text still works: nothing was changed.
        after: async () => expect((await call('get-current-user', { token: strong.auth })).status).toBe(200),
      };
    },
  },
  {
    name: 'POST /access-token/{id}/refresh of a sibling limited to another space',
    route: 'refresh-access-token',
    status: 403,
    kind: 'held',
    act: async (w) => {
      const other = await tokenFor(w.user, READ, { spaceIds: [w.spaceB] });
      return {
        as: await tokenFor(w.user, READ, { spaceIds: [w.spaceA] }),
        options: { params: { accessTokenId: other.id }, body: { expiredTime: inDays(2) } },
      };
    },
  },
  {
    name: 'POST /access-token/{id}/refresh of itself',
    route: 'refresh-access-token',
    status: 200,
    kind: 'control',
    act: async (w) => {
      const as = await tokenFor(w.user, READ, { spaceIds: [w.spaceA] });
      return { as, options: { params: { accessTokenId: as.id }, body: { expiredTime: inDays(2) } } };
    },
  },
  {
    name: 'DELETE /access-token/{id} of a stronger sibling',
    route: 'delete-access-token',
    status: 403,
    kind: 'held',
    act: async (w) => {
      const strong = await tokenFor(w.user, scopesFor(true));
      return {
        as: await tokenFor(w.user, READ),
        options: { params: { accessTokenId: strong.id } },
        after: async () => expect(await storedRights(w.user.id, strong.id)).toBeDefined(),
      };
    },
  },
  {
    name: 'DELETE /access-token/{id} of a weaker sibling',
    route: 'delete-access-token',
    status: 200,
    kind: 'control',
    act: async (w) => {
      const weak = await tokenFor(w.user, ['record|read'], { baseIds: [w.baseA] });
      return {
        as: await tokenFor(w.user, READ, { spaceIds: [w.spaceA] }),
        options: { params: { accessTokenId: weak.id } },
        after: async () => expect(await storedRights(w.user.id, weak.id)).toBeUndefined(),
      };
    },
  },
  {
    name: 'GET /access-token lists the tokens without a secret',
    route: 'list-access-tokens',
    status: 200,
    kind: 'control',
    act: async (w) => ({
      as: await tokenFor(w.user, READ, { spaceIds: [w.spaceA] }),
      options: {},
      after: async (res) => expect(JSON.stringify(res.body)).not.toMatch(/"token"|secretHash/),
    }),
  },
  {
    name: "GET /auth/temp-token carries exactly the calling token's scopes and limits",
    route: 'create-temp-token',
    status: 200,
    kind: 'control',
    act: async (w) => ({
      as: await tokenFor(w.user, READ, { spaceIds: [w.spaceA] }),
      options: {},
      after: async (res) => {
        const claims = decodeJwt(res.body.accessToken as string) as Record<string, unknown>;
        const claimed = JSON.stringify(claims);
        expect(claimed).not.toContain('space|delete');
        expect(claimed).not.toContain(w.spaceB);
        // The temporary token cannot mint a token either.
        const minted = await call('create-access-token', {
          token: bearer(res.body.accessToken as string),
          ...tokenBody({ scopes: READ, spaceIds: [w.spaceA] }),
        });
        expect(minted.status).toBe(403);
      },
    }),
  },

  // POST /admin/users
  {
    name: "POST /admin/users {isAdmin:true} from an admin's token without instance|admin",
    route: 'create-user',
    status: 403,
    kind: 'held',
    act: async (w) => ({
      as: await tokenFor(w.user, ADMIN_NARROW),
      options: { body: { name: 'n', email: `e${Date.now()}${Math.random()}@example.test`, isAdmin: true } },
    }),
  },
  {
    name: "POST /admin/users from an admin's narrowed admin token gives the new user no more scopes",
    route: 'create-user',
    status: 201,
    kind: 'control',
    act: async (w) => ({
      as: await tokenFor(w.user, ['instance|admin', 'record|read']),
      options: { body: { name: 'n', email: `e${Date.now()}${Math.random()}@example.test`, isAdmin: true } },
      after: async (res) => {
        const made = await call('create-access-token', {
          token: bearer(res.body.token as string),
          ...tokenBody({ scopes: ['space|delete'] }),
        });
        expect(made.status).toBe(403);
        const space = await call('create-space', {
          token: bearer(res.body.token as string),
          body: { name: 'x' },
        });
        expect(space.status).toBe(403);
      },
    }),
  },

  // POST /admin/users from temporary and limited tokens: a new user's first token is bounded by
  // the calling token (scopes, limits, time); a new admin needs an unlimited personal admin token.
  ...(
    [
      ["an admin's temporary token", async (w: World) => tempOf(await tokenFor(w.user, scopesFor(true)))],
      [
        'an admin token limited to a space',
        (w: World) => tokenFor(w.user, scopesFor(true), { spaceIds: [w.spaceA] }),
      ],
      [
        'an admin token limited to a base',
        (w: World) => tokenFor(w.user, scopesFor(true), { baseIds: [w.baseA] }),
      ],
      [
        'the temporary token of a space-limited admin token',
        async (w: World) => tempOf(await tokenFor(w.user, scopesFor(true), { spaceIds: [w.spaceA] })),
      ],
    ] as const
  ).map(
    ([what, caller]): Case => ({
      name: `POST /admin/users {isAdmin:true} from ${what}`,
      route: 'create-user',
      status: 403,
      kind: 'held',
      act: async (w) => {
        const email = freshEmail();
        return {
          as: await caller(w),
          options: { body: { name: 'n', email, isAdmin: true } },
          after: async (res) => {
            expect(res.body).toEqual({
              message: NO_ADMIN_FROM_HERE,
              status: 403,
              code: 'restricted_resource',
            });
            expect((await getItems([keys.userEmail(email)])).get(keys.userEmail(email))).toBeUndefined();
          },
        };
      },
    }),
  ),
  {
    name: "POST /admin/users from an admin's temporary token: the first token ends with the parent",
    route: 'create-user',
    status: 201,
    kind: 'control',
    act: async (w) => {
      const expiry = inDays(3);
      const parent = await tokenFor(w.user, ['instance|admin', ...READ], {}, expiry);
      return {
        as: await tempOf(parent),
        options: { body: { name: 'n', email: freshEmail() } },
        after: async (res) =>
          expect(await firstTokenOf(res)).toMatchObject({
            // the scopes of a user who is no admin that the parent has, in the contract's order
            scopes: ['space|read', 'record|read'],
            spaceIds: null,
            baseIds: null,
            expiredTime: expiry,
          }),
      };
    },
  },
  {
    name: 'POST /admin/users from a space-limited admin token: the first token keeps its limits and end',
    route: 'create-user',
    status: 201,
    kind: 'control',
    act: async (w) => {
      const expiry = inDays(3);
      return {
        as: await tokenFor(w.user, scopesFor(true), { spaceIds: [w.spaceA], baseIds: [w.baseB] }, expiry),
        options: { body: { name: 'n', email: freshEmail() } },
        after: async (res) =>
          expect(await firstTokenOf(res)).toMatchObject({
            scopes: scopesFor(false),
            spaceIds: [w.spaceA],
            baseIds: [w.baseB],
            expiredTime: expiry,
          }),
      };
    },
  },
  {
    name: 'POST /admin/users {isAdmin:true} from an unlimited admin token ending in 3 days: so does the first token',
    route: 'create-user',
    status: 201,
    kind: 'control',
    act: async (w) => {
      const expiry = inDays(3);
      return {
        as: await tokenFor(w.user, scopesFor(true), {}, expiry),
        options: { body: { name: 'n', email: freshEmail(), isAdmin: true } },
        after: async (res) =>
          expect(await firstTokenOf(res)).toMatchObject({
            scopes: scopesFor(true),
            spaceIds: null,
            baseIds: null,
            expiredTime: expiry,
          }),
      };
    },
  },
  {
    name: 'POST /admin/users from an admin token living 60 days: the first token still lasts 30 days',
    route: 'create-user',
    status: 201,
    kind: 'control',
    act: async (w) => ({
      as: await tokenFor(w.user, scopesFor(true), {}, inDays(60)),
      options: { body: { name: 'n', email: freshEmail() } },
      after: async (res) => {
        const days = (Date.parse((await firstTokenOf(res))?.expiredTime as string) - Date.now()) / 86_400_000;
        expect(days).toBeGreaterThan(29.99);
        expect(days).toBeLessThanOrEqual(30);
      },
    }),
  },
  // Publishing hands out no lasting right (no token, no user): the scopes alone decide it, so a
  // temporary or space-limited admin token may publish.
  ...(
    [
      ["an admin's temporary token", async (w: World) => tempOf(await tokenFor(w.user, scopesFor(true)))],
      [
        'an admin token limited to a space',
        (w: World) => tokenFor(w.user, scopesFor(true), { spaceIds: [w.spaceA] }),
      ],
    ] as const
  ).map(
    ([what, caller]): Case => ({
      name: `PATCH /admin/plugin/{id}/publish from ${what}`,
      route: 'publish-plugin',
      status: 200,
      kind: 'control',
      act: async (w) => ({ as: await caller(w), options: { params: { pluginId: w.pluginId } } }),
    }),
  ),

  // Plugin routes
  ...(
    [
      [
        'create-plugin',
        'POST /plugin',
        'plugin|create',
        () => ({ body: { name: 'P', logo: 'https://example.test/p.png', positions: ['dashboard'] } }),
      ],
      ['list-plugins', 'GET /plugin', 'plugin|read', () => ({})],
      ['get-plugin', 'GET /plugin/{id}', 'plugin|read', (w: World) => ({ params: { pluginId: w.pluginId } })],
      [
        'delete-plugin',
        'DELETE /plugin/{id}',
        'plugin|delete',
        (w: World) => ({ params: { pluginId: w.pluginId } }),
      ],
      [
        'publish-plugin',
        'PATCH /admin/plugin/{id}/publish',
        'plugin|update',
        (w: World) => ({ params: { pluginId: w.pluginId } }),
      ],
    ] as const
  ).flatMap(([route, label, scope, options]): Case[] => [
    {
      name: `${label} without ${scope}`,
      route,
      status: 403,
      kind: 'held',
      act: async (w) => ({
        as: await tokenFor(
          w.user,
          scopesFor(true).filter((s) => s !== scope),
        ),
        options: options(w),
      }),
    },
    {
      name: `${label} with only what it needs`,
      route,
      status: route === 'create-plugin' ? 201 : 200,
      kind: 'control',
      act: async (w) => ({
        as: await tokenFor(w.user, route === 'publish-plugin' ? ['instance|admin', scope] : [scope]),
        options: options(w),
      }),
    },
  ]),
  {
    name: 'PATCH /admin/plugin/{id}/publish with plugin|update but without instance|admin',
    route: 'publish-plugin',
    status: 403,
    kind: 'held',
    act: async (w) => ({
      as: await tokenFor(w.user, ['plugin|update']),
      options: { params: { pluginId: w.pluginId } },
    }),
  },
];

describe('a narrowed token never hands out more than it has', () => {
  it.each(CASES.map((c) => [c.kind, c.name, c] as const))('[%s] %s', async (_, __, c) => {
    const w = await world();
    const { as, options, after } = await c.act(w);

    const res = await call(c.route, { ...options, token: as.auth });

    expect(res.status, JSON.stringify(res.body)).toBe(c.status);
    if (c.status >= 400)
      expect(res.body).toMatchObject({
        status: c.status,
        code: c.status === 400 ? 'validation_error' : 'restricted_resource',
      });
    await after?.(res);
  });

  it('covers every token, admin and plugin route', () => {
    const routes = new Set(CASES.map((c) => c.route));

    expect([...routes].sort()).toEqual(
      [
        'create-access-token',
        'list-access-tokens',
        'update-access-token',
        'refresh-access-token',
        'delete-access-token',
        'create-temp-token',
        'create-user',
        'create-plugin',
        'list-plugins',
        'get-plugin',
        'delete-plugin',
        'publish-plugin',
      ].sort(),
    );
  });

  it('a non-admin user cannot reach an admin route even with every scope it may have', async () => {
    const w = await world(false);

    const res = await call('create-user', {
      token: w.user.auth,
      body: { name: 'n', email: `e${Date.now()}@example.test` },
    });

    expect(res).toMatchObject({ status: 403, body: { code: 'restricted_resource' } });
  });

  it('a stored empty limit list limits to nothing (it never means "no limit")', async () => {
    const w = await world();
    const empty = await tokenFor(w.user, READ, { spaceIds: [] });

    const res = await call('get-space', { token: empty.auth, params: { spaceId: w.spaceA } });

    expect(res).toMatchObject({ status: 403, body: { code: 'restricted_resource' } });
  });
});
