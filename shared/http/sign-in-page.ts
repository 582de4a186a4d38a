/**
 * A plain sign-in page (`GET /api/signin`) for people without Teable's web app: a form that posts
 * to `POST /api/auth/signin`, then says who is signed in (from `GET /api/auth/user/me`, so a
 * reload stays signed in) with a link to the API reference and a sign-out button. Same origin as
 * the API, so the session cookie and the `Origin` check just work. Static: reads nothing.
 */
import { API_PREFIX } from '#shared/routes.ts';
import { TextReply } from './handler.ts';

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in · Workspace API</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 22rem; margin: 4rem auto; padding: 0 1rem; }
label { display: block; margin-top: .75rem; }
input { width: 100%; padding: .4rem; box-sizing: border-box; }
button { margin-top: 1rem; padding: .4rem 1rem; }
#error { color: #b00020; min-height: 1.5em; }
</style>
</head>
<body>
<h1>Workspace API</h1>
<form id="signin" hidden>
  <label>Email <input name="email" type="email" autocomplete="username" required></label>
  <label>Password <input name="password" type="password" autocomplete="current-password" minlength="8" required></label>
  <button type="submit">Sign in</button>
  <p id="error" role="alert"></p>
</form>
<div id="me" hidden>
  <p>Signed in as <strong id="who"></strong>.</p>
  <p><a href="${API_PREFIX}/docs">API reference</a></p>
  <button id="signout" type="button">Sign out</button>
</div>
<script>
const api = ${JSON.stringify(API_PREFIX)};
const form = document.getElementById('signin');
const me = document.getElementById('me');
const show = (user) => {
  form.hidden = !!user;
  me.hidden = !user;
  if (user) document.getElementById('who').textContent = user.name + ' <' + user.email + '>';
};
fetch(api + '/auth/user/me').then((r) => (r.ok ? r.json() : undefined)).then(show, () => show());
form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const data = new FormData(form);
  const res = await fetch(api + '/auth/signin', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: data.get('email'), password: data.get('password') }),
  });
  const body = await res.json().catch(() => ({}));
  document.getElementById('error').textContent = res.ok ? '' : body.message || 'Sign-in failed';
  if (res.ok) show(body);
});
document.getElementById('signout').addEventListener('click', async () => {
  await fetch(api + '/auth/signout', { method: 'POST' });
  show();
});
</script>
</body>
</html>
`;

/** The page: never cached, so a deploy's new page is what the next visit gets. */
export const signInPage = (): TextReply => new TextReply(PAGE, 'text/html; charset=utf-8');
