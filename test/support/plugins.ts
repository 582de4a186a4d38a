import { expect } from 'vitest';
import { newUser } from './fixtures.ts';
import { call } from './invoke.ts';

type User = Awaited<ReturnType<typeof newUser>>;

/**
 * Creates a plugin of the user's (201 asserted): named Chart, for dashboards and context menus,
 * unless told otherwise. Answers its id and name.
 */
export const newPlugin = async (
  user: User,
  { name = 'Chart', positions = ['dashboard', 'contextMenu'] }: { name?: string; positions?: string[] } = {},
) => {
  const res = await call('create-plugin', {
    token: user.auth,
    body: { name, logo: 'https://plugins.example.test/logo.png', positions },
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; name: string };
};

/** Publishes a plugin as a fresh instance admin (200 asserted); answers the call's result. */
export const publishPlugin = async (pluginId: string) => {
  const admin = await newUser({ isAdmin: true });
  const res = await call('publish-plugin', { token: admin.auth, params: { pluginId } });
  expect(res.status).toBe(200);
  return res;
};
