import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { lambdaContext, toApiGatewayEvent } from '#infra/local/api-gateway-event.ts';
import { documentClient, queryAll } from '#shared/db/client.ts';
import { assumeRoundMs, hasOpenWrites, LEASE_MS, repairInterrupted } from '#shared/db/commit.ts';
import { keys } from '#shared/db/keys.ts';
import { requestScope } from '#shared/db/request-scope.ts';
import { API_PREFIX, routeOf } from '#shared/routes.ts';
import { call } from '#test/support/invoke.ts';
import { newTable } from '#test/support/workspace.ts';

/**
 * Issue 10, items 2 and 3: a large write that stalls or whose process dies never leaves a
 * half-written call behind once the repair worker has run, and no answer says "nothing was
 * written" unless that is true. The database is the real DynamoDB Local; stalls are injected in
 * the SDK's middleware stack, crashes by killing a child process that runs the handler.
 */

type Table = Awaited<ReturnType<typeof newTable>>;

const thousand = (n = 1000) => Array.from({ length: n }, (_, i) => ({ fields: { Name: `r${i}` } }));

/**
 * Everything stored for a table's records: records, number index, view order, journals, heads.
 * Read by partition (a scan of the whole shared test table can take longer than a lease).
 */
const stateOf = async (t: Table) => {
  const [records, numbers, order, journals, heads] = await Promise.all([
    queryAll(keys.recordsOf(t.tableId)),
    queryAll(keys.recordNumbersOf(t.tableId)),
    queryAll(keys.viewOrderOf(t.viewId)),
    queryAll(keys.journalsOf(t.tableId)),
    queryAll({ ...keys.txnHeads(), skPrefix: `${t.tableId}#` }),
  ]);
  // Fences (empty journals the repair worker leaves so a late unit is refused) undo nothing.
  return { records, numbers, order, journals: journals.filter((j) => !j.fence), heads };
};

/** The record ids a full listing of the table's first view returns (every page). */
const listed = async (t: Table): Promise<string[]> => {
  const ids: string[] = [];
  for (let skip = 0; ; skip += 1000) {
    const res = await call('list-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      query: `take=1000&skip=${skip}`,
    });
    expect(res.status).toBe(200);
    ids.push(...(res.body.records as { id: string }[]).map((r) => r.id));
    if (res.body.records.length < 1000) return ids;
  }
};

/** Index entries agree with records: one number entry per record, none left for a missing one. */
const expectConsistent = async (t: Table, count: number) => {
  const state = await stateOf(t);
  expect(state.records).toHaveLength(count);
  const ids = new Set(state.records.map((r) => String(r.id)));
  const numbered = state.numbers.map((n) => String(n.recordId));
  expect(numbered.filter((id) => !ids.has(id))).toEqual([]);
  expect(new Set(numbered).size).toBe(count);
  expect(state.order.filter((o) => !ids.has(String(o.recordId)))).toEqual([]);
  expect(state.journals).toEqual([]);
  expect(state.heads).toEqual([]);
  const seen = await listed(t);
  expect(seen).toHaveLength(count);
  expect(new Set(seen).size).toBe(count);
};

/** Delays every write call after the first `after` by `ms` (a database that stalls part-way). */
const stallWritesAfter = (after: number, ms: number) => {
  let writes = 0;
  const name = `stall-${Math.random()}`;
  documentClient.middlewareStack.add(
    (next, context) => async (args) => {
      const command = (context as { commandName?: string }).commandName ?? '';
      if (/^(TransactWriteItems|BatchWriteItem)Command$/.test(command) && ++writes > after)
        await new Promise((r) => setTimeout(r, ms));
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => documentClient.middlewareStack.remove(name);
};

let unstall: (() => void) | undefined;
afterEach(() => {
  unstall?.();
  unstall = undefined;
  assumeRoundMs(300);
});

/** Calls a table's batch route as a Lambda with `timeoutMs` to live. */
const invokeWithin = async (
  handlerName: 'create-records' | 'update-records',
  t: Table,
  timeoutMs: number,
  body: unknown,
  idempotencyKey?: string,
) => {
  const { handler } = await import(`#functions/${handlerName}.ts`);
  const route = routeOf(handlerName);
  const event = toApiGatewayEvent(
    {
      method: route.method,
      path: `${API_PREFIX}/table/${t.tableId}/record`,
      rawQueryString: '',
      headers: {
        authorization: t.owner.auth,
        'content-type': 'application/json',
        ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
      },
      body: Buffer.from(JSON.stringify(body)),
    },
    route,
    { tableId: t.tableId },
  );
  const res = await handler(event, lambdaContext(handlerName, timeoutMs));
  return { status: res.statusCode, headers: res.headers ?? {}, body: JSON.parse(res.body ?? '{}') };
};

const createWithin = (t: Table, timeoutMs: number, body: unknown, idempotencyKey?: string) =>
  invokeWithin('create-records', t, timeoutMs, body, idempotencyKey);

/** Waits until the table has no head whose lease is still running (the writer gave up or finished). */
const settled = async (t: Table) => {
  for (let i = 0; i < 300; i++) {
    const heads = await queryAll({ ...keys.txnHeads(), skPrefix: `${t.tableId}#` });
    if (heads.every((h) => Number(h.leaseUntil) < Date.now())) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the writer never let go of its lease');
};

describe('a large write that cannot finish in time', () => {
  it('is refused up front with 503 + Retry-After when the time left cannot cover it; nothing written', async () => {
    const t = await newTable({ fields: [{ name: 'Name', type: 'singleLineText' }], records: [] });
    assumeRoundMs(5_000);

    const res = await createWithin(t, 8_000, { records: thousand() });

    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({
      code: 'service_unavailable',
      message: expect.stringMatching(/nothing was written/),
    });
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    await expectConsistent(t, 0);
  });

  it('stalling part-way answers 503 only once undone, else 504 write_interrupted; after repair nothing is left and the same Idempotency-Key then creates every record once', async () => {
    const t = await newTable({ fields: [{ name: 'Name', type: 'singleLineText' }], records: [] });
    unstall = stallWritesAfter(4, 2_500);

    const res = await createWithin(t, 6_000, { records: thousand() }, 'stall-1');

    expect([503, 504]).toContain(res.status);
    if (res.status === 503) expect(res.body.message).toMatch(/nothing was written/);
    else {
      expect(res.body).toMatchObject({ code: 'write_interrupted' });
      expect(res.body.message).not.toMatch(/nothing was written/);
    }
    unstall();
    unstall = undefined;
    await settled(t);
    await repairInterrupted({ scope: t.tableId, now: Date.now() + LEASE_MS + 1 });
    await expectConsistent(t, 0);

    const retry = await createWithin(t, 29_000, { records: thousand() }, 'stall-1');
    expect(retry.status).toBe(201);
    await expectConsistent(t, 1000);
  });
});

/** Runs a handler in a child process and kills it (SIGKILL) once the table has an open journaled write. */
const killMidWrite = async (t: Table, name: string, options: unknown): Promise<void> => {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/support/crash-writer.ts', name, JSON.stringify(options)],
    {
      env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT', CRASH_WRITER_STALL_MS: '150' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let killed = false;
  for (let i = 0; i < 600 && !killed; i++) {
    const heads = await queryAll({ ...keys.txnHeads(), skPrefix: `${t.tableId}#` });
    const journals = await queryAll(keys.journalsOf(t.tableId));
    // Kill once the write has applied some units: a journal beyond the plain ones' is there.
    if (heads.length > 0 && journals.length > 2) {
      child.kill('SIGKILL');
      killed = true;
    } else await new Promise((r) => setTimeout(r, 10));
  }
  const code = await exited;
  expect(killed, `the writer finished before it could be killed (exit ${code})`).toBe(true);
};

describe('a writer killed part-way', () => {
  it('a 1000-record create: the repair worker undoes it whole once the lease has run out', async () => {
    const t = await newTable({ fields: [{ name: 'Name', type: 'singleLineText' }], records: [] });

    await killMidWrite(t, 'create-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: { records: thousand() },
    });

    const left = await stateOf(t);
    expect(left.heads).toHaveLength(1);
    // Its head lists the table it changes: index builds of this table wait for it, others' do not.
    expect(left.heads[0]?.tables).toEqual([t.tableId]);
    expect(await hasOpenWrites(t.tableId)).toBe(true);
    expect(await hasOpenWrites(`${t.tableId}x`)).toBe(false);
    // Within the lease the writer might still be alive: the worker leaves it alone.
    const within = Number(left.heads[0]?.leaseUntil) - 1;
    expect(await repairInterrupted({ scope: t.tableId, now: within })).toMatchObject({ undone: 0 });
    const report = await repairInterrupted({ scope: t.tableId, now: Date.now() + LEASE_MS + 1 });
    expect(report).toMatchObject({ undone: 1, completed: 0 });
    await expectConsistent(t, 0);
    expect(await hasOpenWrites(t.tableId)).toBe(false);
  });

  it("a conversion of 600 cells: the repair worker puts every cell and the field's old definition back", async () => {
    const t = await newTable({
      fields: [
        { name: 'Name', type: 'singleLineText' },
        { name: 'Code', type: 'singleLineText' },
      ],
      records: [],
    });
    const rows = Array.from({ length: 600 }, (_, i) => ({ fields: { Name: `r${i}`, Code: `${i}` } }));
    for (let i = 0; i < rows.length; i += 100)
      expect(
        (
          await call('create-records', {
            token: t.owner.auth,
            params: { tableId: t.tableId },
            body: { records: rows.slice(i, i + 100) },
          })
        ).status,
      ).toBe(201);
    const code = (
      await call('list-fields', { token: t.owner.auth, params: { tableId: t.tableId } })
    ).body.find((f: { name: string }) => f.name === 'Code');
    const before = (await stateOf(t)).records.map((r) => [r.id, r[code.id]]);

    await killMidWrite(t, 'convert-field', {
      token: t.owner.auth,
      params: { tableId: t.tableId, fieldId: code.id },
      body: { type: 'number' },
    });
    const report = await repairInterrupted({ scope: t.tableId, now: Date.now() + LEASE_MS + 1 });

    expect(report).toMatchObject({ undone: 1, completed: 0 });
    const field = await call('get-field', {
      token: t.owner.auth,
      params: { tableId: t.tableId, fieldId: code.id },
    });
    expect(field.body).toEqual(code);
    expect((await stateOf(t)).records.map((r) => [r.id, r[code.id]])).toEqual(before);
    await expectConsistent(t, 600);
  });

  it('a 480-record delete: the repair worker puts every record and index entry back', async () => {
    const t = await newTable({ fields: [{ name: 'Name', type: 'singleLineText' }], records: [] });
    const made = await call('create-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: { records: thousand(480) },
    });
    expect(made.status).toBe(201);
    const ids = (made.body.records as { id: string }[]).map((r) => r.id);

    await killMidWrite(t, 'delete-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: undefined,
      query: ids.map((id) => `recordIds[]=${id}`).join('&'),
    });
    const report = await repairInterrupted({ scope: t.tableId, now: Date.now() + LEASE_MS + 1 });

    expect(report).toMatchObject({ undone: 1 });
    await expectConsistent(t, 480);
    expect(new Set(await listed(t))).toEqual(new Set(ids));
  });
});

/** A gate calls wait at until released; `held` counts the calls that waited. */
const gate = () => {
  let release: () => void = () => {};
  const opened = new Promise<void>((r) => {
    release = r;
  });
  const g = {
    held: 0,
    release,
    hold: async () => {
      g.held++;
      await opened;
    },
  };
  return g;
};

const until = async (condition: () => boolean) => {
  for (let i = 0; i < 1000 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(condition()).toBe(true);
};

describe('a writer that stalls while the repair worker takes over', () => {
  it('cannot land a unit after the takeover: its units in flight are refused, it answers 504 write_interrupted and every record keeps its value', async () => {
    const t = await newTable({ fields: [{ name: 'Name', type: 'singleLineText' }], records: [] });
    const made = await call('create-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: { records: thousand() },
    });
    const ids = (made.body.records as { id: string }[]).map((r) => r.id);
    // Hold the writer's transactions (its versioned units; only those inside a request) after its
    // first three: the writer is frozen with units in flight. Hold the worker's batch writes (the
    // removal of journal and head, outside any request): its repair is part-way when they land.
    const writer = gate();
    const worker = gate();
    let writes = 0;
    const name = `gate-${Math.random()}`;
    documentClient.middlewareStack.add(
      (next, context) => async (args) => {
        const command = (context as { commandName?: string }).commandName ?? '';
        if (requestScope() && command === 'TransactWriteItemsCommand' && ++writes > 3) await writer.hold();
        if (!requestScope() && command === 'BatchWriteItemCommand') await worker.hold();
        return next(args);
      },
      { step: 'initialize', name },
    );
    unstall = () => documentClient.middlewareStack.remove(name);

    const answer = invokeWithin('update-records', t, 29_000, {
      records: ids.map((id) => ({ id, fields: { Name: 'batch' } })),
    });
    // Eight units in flight at once: the pool's width.
    await until(() => writer.held === 8);

    // The worker takes over as if the lease had run out (the writer is frozen, not dead).
    const repair = repairInterrupted({ scope: t.tableId, now: Date.now() + LEASE_MS + 1 });
    await until(() => worker.held > 0);
    writer.release();
    const res = await answer;
    worker.release();
    expect(await repair).toMatchObject({ undone: 1 });

    expect(res.status).toBe(504);
    expect(res.body).toMatchObject({ code: 'write_interrupted' });
    const state = await stateOf(t);
    expect(state.records.filter((r) => JSON.stringify(r).includes('batch'))).toEqual([]);
    await expectConsistent(t, 1000);
  });
});

describe('undo never overwrites a newer edit', () => {
  it('an update interrupted part-way keeps a record edited since; the others get their earlier value back', async () => {
    const t = await newTable({ fields: [{ name: 'Name', type: 'singleLineText' }], records: [] });
    const made = await call('create-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: { records: thousand(1000) },
    });
    const ids = (made.body.records as { id: string }[]).map((r) => r.id);

    await killMidWrite(t, 'update-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: { records: ids.map((id) => ({ id, fields: { Name: 'batch' } })) },
    });
    // Someone edits a record the interrupted batch had already changed (or not).
    const edited = ids[0] as string;
    const edit = await call('update-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: edited },
      body: { record: { fields: { Name: 'newer' } } },
    });
    expect(edit.status).toBe(200);
    const report = await repairInterrupted({ scope: t.tableId, now: Date.now() + LEASE_MS + 1 });

    expect(report).toMatchObject({ undone: 1 });

    const read = await call('get-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: edited },
    });
    expect(read.body.fields.Name).toBe('newer');
    const others = await Promise.all(
      ids
        .slice(1, 40)
        .map((id) =>
          call('get-record', { token: t.owner.auth, params: { tableId: t.tableId, recordId: id } }),
        ),
    );
    expect(others.map((o) => o.body.fields.Name)).toEqual(ids.slice(1, 40).map((_, i) => `r${i + 1}`));
    await expectConsistent(t, 1000);
  });
});
