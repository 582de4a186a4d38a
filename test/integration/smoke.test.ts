import { describe, expect, it } from 'vitest';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';

describe('GET /auth/user/me', () => {
  it('answers the calling user for a valid personal token', async () => {
    const user = await newUser();
    const res = await call('get-current-user', { token: user.auth });
    expect(res).toMatchObject({ status: 200, body: { id: user.id, name: user.name, email: user.email } });
  });

  it('answers 401 with the contract body without a token', async () => {
    const res = await call('get-current-user');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      message: 'Sign in, or send a valid bearer token',
      status: 401,
      code: 'unauthorized',
    });
  });
});
