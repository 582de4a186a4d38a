/**
 * Sign-in (issue 45): what a sign-in costs (the scrypt hash dominates: CPU time and memory), that an
 * unknown email costs what a wrong password costs, and a cookie-carried request's round trips
 * against a bearer one.
 */
import { randomBase62 } from '#shared/ids.ts';

type Measure = (
  label: string,
  run: () => Promise<{ status: number }>,
  runs?: number,
  warmup?: number,
) => Promise<void>;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

export const sessionsBench = async (token: string, measure: Measure) => {
  const { call } = await import('#test/support/invoke.ts');
  const { hashPassword, verifyPassword, SCRYPT_PARAMS } = await import('#shared/auth/passwords.ts');
  const email = `${randomBase62(10).toLowerCase()}@example.test`;
  const password = 'bench-pass-1';
  const up = await call('sign-up', { body: { email, password } });
  const cookie = String(up.cookies?.[0]).split(';')[0] as string;
  // a different address per try, and a different user per wrong password: the bench measures the
  // work, not the lock (5 failures lock an email)
  let n = 0;
  const address = () => `198.18.${Math.floor(n / 250)}.${(n++ % 250) + 1}`;
  const others: string[] = [];
  for (let i = 0; i < 20; i++) {
    const other = `${randomBase62(10).toLowerCase()}@example.test`;
    await call('sign-up', { body: { email: other, password } });
    others.push(other);
  }
  const nextOther = () => others.shift() as string;

  console.log('\n## Sign-in and sessions\n');
  console.log(
    '| request | status | DynamoDB calls | sequential round trips | RCU | WCU | handler time (median) | calls |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---|');
  await measure(
    'POST /auth/signin (right password)',
    () => call('sign-in', { body: { email, password }, sourceIp: address() }),
    10,
  );
  await measure(
    'POST /auth/signin (wrong password)',
    () => call('sign-in', { body: { email: nextOther(), password: 'wrong-pass-1' }, sourceIp: address() }),
    4,
  );
  await measure(
    'POST /auth/signin (unknown email)',
    () =>
      call('sign-in', {
        body: { email: `${randomBase62(8).toLowerCase()}${email}`, password },
        sourceIp: address(),
      }),
    4,
  );
  await measure('GET /auth/user/me with a bearer token', () => call('get-current-user', { token }));
  await measure('GET /auth/user/me with the session cookie', () =>
    call('get-current-user', { headers: { cookie } }),
  );

  // the gap an attacker would time: unknown email against wrong password, interleaved
  const unknown: number[] = [];
  const wrong: number[] = [];
  for (let i = 0; i < 12; i++) {
    for (const [list, body] of [
      [unknown, { email: `y${i}${email}`, password }],
      [wrong, { email: nextOther(), password: `wrong-pass-${i}` }],
    ] as const) {
      const t = performance.now();
      await call('sign-in', { body, sourceIp: address() });
      list.push(performance.now() - t);
    }
  }
  const gap = median(unknown) - median(wrong);
  console.log(
    `\nUnknown email vs wrong password, 12 each interleaved: median ${median(unknown).toFixed(1)} ms vs ${median(wrong).toFixed(1)} ms (gap ${gap.toFixed(1)} ms, ${((100 * gap) / median(wrong)).toFixed(1)} %).`,
  );

  // the hash alone: CPU time (one core) and the memory scrypt asks for
  const stored = await hashPassword(password);
  const cpu: number[] = [];
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  for (let i = 0; i < 5; i++) {
    const c = process.cpuUsage();
    await verifyPassword(password, stored);
    const used = process.cpuUsage(c);
    cpu.push((used.user + used.system) / 1000);
    peak = Math.max(peak, process.memoryUsage().rss);
  }
  const mib = (128 * SCRYPT_PARAMS.N * SCRYPT_PARAMS.r) / 2 ** 20;
  console.log(
    `scrypt N=2^${Math.log2(SCRYPT_PARAMS.N)}, r=${SCRYPT_PARAMS.r}, p=${SCRYPT_PARAMS.p}: ${median(cpu).toFixed(0)} ms of CPU a check (median of 5, this machine), ${mib} MiB of memory a check (scrypt's own buffer, outside the JS heap; process RSS ${(rss0 / 2 ** 20).toFixed(0)} → ${(peak / 2 ** 20).toFixed(0)} MiB). A 1,024 MB Lambda gets ~0.6 of a vCPU: the check's wall time there is about its CPU time ÷ 0.6.`,
  );
};
