/**
 * Sign-in with sessions through Teable's own client (`@teable/openapi`), as its web app calls it:
 * no token, the `auth_session` cookie carried by the client from answer to request (a browser's
 * cookie jar, here an interceptor), writes sent with the page's own `Origin`.
 */
import {
  axios,
  changePassword,
  createSpace,
  signin,
  signout,
  signup,
  userMe,
  userMeVoSchema,
} from '@teable/openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '#shared/ids.ts';
import { useTestServer } from '#test/support/server.ts';

const api = useTestServer();

/** The browser's part: keep the session cookie, send it back, name the page's origin. */
let jar: string | undefined;
let interceptors: [number, number];
beforeAll(() => {
  const origin = api.base.replace(/\/api$/, '');
  axios.defaults.baseURL = api.base;
  delete axios.defaults.headers.common.Authorization;
  interceptors = [
    axios.interceptors.request.use((config) => {
      if (jar) config.headers.set('cookie', jar);
      config.headers.set('origin', origin);
      return config;
    }),
    axios.interceptors.response.use((response) => {
      const set = response.headers['set-cookie'] as string[] | undefined;
      const session = set?.find((c) => c.startsWith('auth_session='));
      if (session) jar = /Max-Age=0\b/.test(session) ? undefined : session.split(';')[0];
      return response;
    }),
  ];
});
afterAll(() => {
  axios.interceptors.request.eject(interceptors[0]);
  axios.interceptors.response.eject(interceptors[1]);
});

describe("sessions through Teable's client", () => {
  it('signs up, reads userMe, signs out, signs in, changes the password', async () => {
    const email = `${randomBase62(10).toLowerCase()}@example.test`;

    const up = await signup({ email, password: 'first-pass-1' });
    expect(up.status).toBe(201);
    expect(userMeVoSchema.parse(up.data)).toMatchObject({ email, hasPassword: true });
    const me = await userMe();
    expect(userMeVoSchema.parse(me.data).id).toBe(up.data.id);
    expect((await createSpace({ name: 'From the client' })).status).toBe(201);

    await signout();
    expect(jar).toBeUndefined();
    await expect(userMe()).rejects.toMatchObject({ status: 401 });

    await expect(signin({ email, password: 'wrong-pass-1' })).rejects.toMatchObject({
      status: 400,
      message: 'Incorrect email or password.',
    });
    const back = await signin({ email, password: 'first-pass-1' });
    expect(back.status).toBe(200);
    expect(userMeVoSchema.parse(back.data).id).toBe(up.data.id);

    await changePassword({ password: 'first-pass-1', newPassword: 'second-pass-2' });
    expect((await userMe()).data.id).toBe(up.data.id);
    await signout();
    await expect(signin({ email, password: 'first-pass-1' })).rejects.toMatchObject({ status: 400 });
    expect((await signin({ email, password: 'second-pass-2' })).status).toBe(200);
  });
});
