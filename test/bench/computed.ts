/**
 * Computed-field figures (issue 12: formula, lookup, rollup), printed by `npm run bench` (section
 * `computed`; `BENCH_ONLY=computed npm run bench` prints it alone, `BENCH_SKIP=computed` leaves it
 * out) and by `npx tsx test/bench/computed.ts` (its own DynamoDB Local).
 *
 * 1. The formula engine alone: a formula of 3 functions over 10 × N in-memory rows.
 * 2. POST /table/{t}/field of a formula over a table of N records (the backfill before the 201).
 * 3. Fan-out: one record of A that N records of B look up and roll up (manyOne links, two-way and
 *    one-way), then writes nothing depends on, beside the same write on a plain table.
 * 4. A list page (take 100, view order) of a table with 5 lookups and 5 formulas against the same
 *    table without them.
 *
 * N is `BENCH_COMPUTED_RECORDS` (default 10,000; e.g. 1000 for a quick run).
 */
import { compileFormula, type FieldTypes, type FormulaRow } from '#shared/formula/compile.ts';
import type { EvalContext, Typed } from '#shared/formula/formula-types.ts';
import { isScript, runAlone } from './alone.ts';

type Call = typeof import('#test/support/invoke.ts')['call'];
type CallResult = Awaited<ReturnType<Call>>;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
};
const ms = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(2)} s` : `${n.toFixed(0)} ms`);
const num = (n: number) => Math.round(n).toLocaleString('en');
const fail = (what: string, res: CallResult) =>
  new Error(`${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);

/** Items sent to be written, counted at the document client (the metrics module counts calls only). */
const written = { records: 0, journal: 0, other: 0 };
const resetWritten = () => {
  written.records = 0;
  written.journal = 0;
  written.other = 0;
};
const noteWrite = (pk: unknown) => {
  const p = String(pk ?? '');
  if (p.startsWith('RECORDS#')) written.records++;
  else if (p.startsWith('TXN')) written.journal++;
  else written.other++;
};
const countWrites = async () => {
  const { documentClient } = await import('#shared/db/client.ts');
  const client = documentClient as unknown as {
    send: (command: { constructor: { name: string }; input: Record<string, unknown> }) => Promise<unknown>;
    benchCounted?: boolean;
  };
  if (client.benchCounted) return;
  client.benchCounted = true;
  const send = client.send.bind(client);
  client.send = (command) => {
    const input = command.input as {
      Item?: { pk?: unknown };
      Key?: { pk?: unknown };
      TransactItems?: Record<string, { Item?: { pk?: unknown }; Key?: { pk?: unknown } }>[];
      RequestItems?: Record<
        string,
        { PutRequest?: { Item: { pk?: unknown } }; DeleteRequest?: { Key: { pk?: unknown } } }[]
      >;
    };
    const name = command.constructor.name;
    if (name === 'PutCommand') noteWrite(input.Item?.pk);
    else if (name === 'UpdateCommand' || name === 'DeleteCommand') noteWrite(input.Key?.pk);
    else if (name === 'TransactWriteCommand')
      for (const t of input.TransactItems ?? []) {
        const op = t.Put ?? t.Update ?? t.Delete;
        if (op) noteWrite(op.Item?.pk ?? op.Key?.pk);
      }
    else if (name === 'BatchWriteCommand')
      for (const list of Object.values(input.RequestItems ?? {}))
        for (const r of list) noteWrite(r.PutRequest?.Item.pk ?? r.DeleteRequest?.Key.pk);
    return send(command);
  };
};

/** 1. The engine alone: compile once, run over `rows` in-memory records (as a backfill does). */
const pureFormula = (rows: number) => {
  const ids = { name: 'fldName0000000000000', price: 'fldPrice000000000000', qty: 'fldQty00000000000000' };
  const types: Record<string, Typed> = {
    [ids.name]: { type: 'string', multiple: false },
    [ids.price]: { type: 'number', multiple: false },
    [ids.qty]: { type: 'number', multiple: false },
  };
  const fields: FieldTypes = { typeOf: (id) => types[id] };
  const expression = `ROUND({${ids.price}} * {${ids.qty}}, 2) & " " & UPPER({${ids.name}}) & LEN({${ids.name}})`;
  const data = Array.from({ length: rows }, (_, i) => ({
    [ids.name]: `item ${i} of the bench`,
    [ids.price]: ((i * 37) % 1000) / 7,
    [ids.qty]: i % 13,
  }));
  const now = new Date();
  const runOnce = () => {
    const t = performance.now();
    const compiled = compileFormula(expression, fields);
    let filled = 0;
    for (const [i, record] of data.entries()) {
      const row: FormulaRow = {
        value: (id) => record[id] ?? null,
        dateText: (_id, iso) => iso,
      };
      const ctx: EvalContext = {
        timeZone: 'UTC',
        now,
        record: { id: `rec${i}`, autoNumber: i + 1, createdTime: '', lastModifiedTime: '' },
      };
      if (compiled.run(row, ctx) !== undefined) filled++;
    }
    if (filled !== rows) throw new Error(`formula filled ${filled} of ${rows}`);
    return performance.now() - t;
  };
  const first = runOnce();
  const warm = [runOnce(), runOnce(), runOnce()];
  console.log('\n## Computed fields: formula engine alone (CPU, in memory)\n');
  console.log(
    `Expression (3 functions): \`ROUND({Price} * {Qty}, 2) & " " & UPPER({Name}) & LEN({Name})\`\n`,
  );
  console.log('| rows | first run (cold JIT) | median of 3 warm runs | per row | goal |');
  console.log('|---:|---:|---:|---:|---|');
  console.log(
    `| ${num(rows)} | ${ms(first)} | ${ms(median(warm))} | ${((median(warm) * 1000) / rows).toFixed(2)} µs | < 300 ms at 100,000 |`,
  );
};

/** The computed-field figures against the bench's DynamoDB (same process, same metrics). */
export const computedBench = async (token: string) => {
  const N = Number(process.env.BENCH_COMPUTED_RECORDS ?? 10_000);
  if (!Number.isInteger(N) || N < 1) throw new Error('BENCH_COMPUTED_RECORDS must be a positive integer');
  pureFormula(N * 10);

  const { call } = await import('#test/support/invoke.ts');
  const { callSummary, itemsRead, resetCalls } = await import('#shared/db/metrics.ts');
  const { seedRecords } = await import('./seed.ts');
  await countWrites();

  const space = (await call('create-space', { token, body: { name: 'Computed' } })).body.id;
  const baseId = (await call('create-base', { token, body: { spaceId: space } })).body.id as string;
  type FieldRef = { id: string; name: string; type: string };
  const createTable = async (name: string, fields: Record<string, unknown>[]) => {
    const res = await call('create-table', {
      token,
      params: { baseId },
      body: { name, fields, records: [] },
    });
    if (res.status !== 201) throw fail('create-table', res);
    const byName = (n: string) => (res.body.fields as FieldRef[]).find((f) => f.name === n) as FieldRef;
    return { id: res.body.id as string, fields: res.body.fields as FieldRef[], byName };
  };
  const addField = async (tableId: string, body: Record<string, unknown>) => {
    const res = await call('create-field', { token, params: { tableId }, body });
    if (res.status !== 201) throw fail(`create-field ${JSON.stringify(body).slice(0, 200)}`, res);
    return res.body as FieldRef;
  };
  /** Creates records through the write path, 1,000 a call; answers their ids (or stops at an error). */
  const createRecords = async (
    tableId: string,
    count: number,
    fieldsOf: (i: number) => Record<string, unknown>,
  ): Promise<{ ids: string[]; ms: number; error?: string }> => {
    const ids: string[] = [];
    const start = performance.now();
    for (let from = 0; from < count; from += 1000) {
      const n = Math.min(1000, count - from);
      const res = await call('create-records', {
        token,
        params: { tableId },
        body: { records: Array.from({ length: n }, (_, k) => ({ fields: fieldsOf(from + k) })) },
      });
      if (res.status !== 201 && res.status !== 200)
        return {
          ids,
          ms: performance.now() - start,
          error: `call ${from / 1000 + 1} (records ${from + 1}–${from + n}): ${res.status} ${JSON.stringify(res.body).slice(0, 400)}`,
        };
      ids.push(...(res.body.records as { id: string }[]).map((r) => r.id));
    }
    return { ids, ms: performance.now() - start };
  };

  /** One measured request: the figures of one run (or the first after `warmup`), median time. */
  const measure = async (label: string, run: () => Promise<CallResult>, runs = 1, warmup = 0) => {
    const times: number[] = [];
    let first:
      | { s: ReturnType<typeof callSummary>; items: number; w: typeof written; res: CallResult }
      | undefined;
    for (let i = 0; i < runs + warmup; i++) {
      resetCalls();
      resetWritten();
      const t = performance.now();
      const res = await run();
      const elapsed = performance.now() - t;
      if (i < warmup) continue;
      times.push(elapsed);
      if (!first) first = { s: callSummary(), items: itemsRead(), w: { ...written }, res };
      if (res.status >= 300) break;
    }
    const f = first as NonNullable<typeof first>;
    const byOp = new Map<string, number>();
    for (const op of f.s.ops) byOp.set(op, (byOp.get(op) ?? 0) + 1);
    const ops = [...byOp].map(([op, c]) => `${c} ${op}`).join(', ');
    console.log(
      `| ${label} | ${f.res.status} | ${f.s.calls} | ${f.s.sequentialRoundTrips} | ${num(f.items)} | ${num(f.s.readUnits)} | ${num(f.w.records)} / ${num(f.w.journal)} / ${num(f.w.other)} | ${num(f.s.writeUnits)} | ${ms(median(times))} | ${ops} |`,
    );
    if (f.res.status >= 300) console.log(`\n> ${label}: ${f.res.status} ${JSON.stringify(f.res.body)}\n`);
    return f.res;
  };
  const header = () => {
    console.log(
      '| request | status | DynamoDB calls | sequential round trips | items read | RCU | items written: records / journal / other | WCU | handler time | calls |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---|---:|---:|---|');
  };

  // ---- 2. formula field create (backfill) ----
  const goods = await createTable(`Goods ${N}`, [
    { type: 'singleLineText', name: 'Name' },
    { type: 'number', name: 'Price' },
    { type: 'number', name: 'Qty' },
  ]);
  const [gName, gPrice, gQty] = ['Name', 'Price', 'Qty'].map((n) => goods.byName(n).id) as [
    string,
    string,
    string,
  ];
  const t = performance.now();
  await seedRecords(goods.id, N, (i) => ({
    [gName]: `item ${i}`,
    [gPrice]: ((i * 37) % 1000) / 7,
    [gQty]: i % 13,
  }));
  const seedGoodsMs = performance.now() - t;
  // load the create-field handler on a small table first (module load is not the backfill's)
  const tiny = await createTable('Tiny', [{ type: 'singleLineText', name: 'Name' }]);
  await addField(tiny.id, { type: 'formula', name: 'Warm', options: { expression: 'UPPER("x")' } });
  console.log(`\n## Computed fields: formula field create (backfill of every record before the 201)\n`);
  console.log(
    `Table of ${num(N)} records × 3 fields (Name, Price, Qty), seeded with BatchWrite in ${ms(seedGoodsMs)} (test/bench/seed.ts).\n`,
  );
  header();
  await measure(`POST /table/{t}/field formula of 3 functions over ${num(N)} records`, () =>
    call('create-field', {
      token,
      params: { tableId: goods.id },
      body: {
        type: 'formula',
        name: 'Label',
        options: {
          expression: `ROUND({${gPrice}} * {${gQty}}, 2) & " " & UPPER({${gName}}) & LEN({${gName}})`,
        },
      },
    }),
  );
  await measure(
    `POST /table/{t}/field formula \`{Price} * {Qty}\` over ${num(N)} records (2nd formula)`,
    () =>
      call('create-field', {
        token,
        params: { tableId: goods.id },
        body: { type: 'formula', name: 'Total', options: { expression: `{${gPrice}} * {${gQty}}` } },
      }),
  );
  {
    const page = await call('list-records', { token, params: { tableId: goods.id }, query: 'take=3&skip=1' });
    const r = page.body?.records?.[0]?.fields ?? {};
    console.log(
      `\nCheck: record 2 reads Label=${JSON.stringify(r.Label)}, Total=${JSON.stringify(r.Total)} (Price ${r.Price}, Qty ${r.Qty}).`,
    );
  }

  // ---- 3. fan-out ----
  console.log(`\n## Computed fields: fan-out of one write to ${num(N)} dependents (manyOne links)\n`);
  console.log(
    `Table A (Name, Price, Note; 2 records: A1 linked from every record of B, A2 from none); table B (${num(N)} records, each linked manyOne to A1, with a lookup of A.Price and a rollup sum of A.Price). B is created through POST /table/{t}/record, 1,000 records a call. Items written are those sent (TransactWrite/BatchWrite/Put/Update), by partition: RECORDS# / TXN (journal) / other.\n`,
  );
  const fanOut = async (oneWay: boolean) => {
    const kind = oneWay ? 'one-way link' : 'two-way link';
    const a = await createTable(`A ${kind}`, [
      { type: 'singleLineText', name: 'Name' },
      { type: 'number', name: 'Price' },
      { type: 'singleLineText', name: 'Note' },
    ]);
    const aRecords = await createRecords(a.id, 2, (i) => ({ Name: `A${i + 1}`, Price: 10, Note: 'n' }));
    const [a1, a2] = aRecords.ids as [string, string];
    const b = await createTable(`B ${kind}`, [
      { type: 'singleLineText', name: 'Name' },
      { type: 'number', name: 'Qty' },
    ]);
    const link = await addField(b.id, {
      type: 'link',
      name: 'A',
      options: { relationship: 'manyOne', foreignTableId: a.id, ...(oneWay ? { isOneWay: true } : {}) },
    });
    const lookupOptions = { foreignTableId: a.id, linkFieldId: link.id, lookupFieldId: a.byName('Price').id };
    const lookup = await addField(b.id, {
      type: 'number',
      isLookup: true,
      name: 'Price (lookup)',
      lookupOptions,
    });
    const rollup = await addField(b.id, {
      type: 'rollup',
      name: 'Price (rollup)',
      options: { expression: 'sum({values})' },
      lookupOptions,
    });
    const seeded = await createRecords(b.id, N, (i) => ({ Name: `b${i}`, Qty: i % 7, A: { id: a1 } }));
    console.log(
      `\n##### ${kind}: seeding B: ${num(seeded.ids.length)} of ${num(N)} records in ${ms(seeded.ms)}${seeded.error ? ` — STOPPED at ${seeded.error}` : ''}\n`,
    );
    header();
    if (seeded.ids.length === 0) return;
    const linked = seeded.ids.length;
    // writes nothing reads first (they also load the update handler)
    let turn = 0;
    await measure(
      `A1: update Note (no dependent reads it; A has dependents in B)`,
      () =>
        call('update-record', {
          token,
          params: { tableId: a.id, recordId: a1 },
          body: { record: { fields: { Note: `n${turn++}` } } },
        }),
      5,
      2,
    );
    await measure(
      `A2: update Price (looked up, but no record links A2)`,
      () =>
        call('update-record', {
          token,
          params: { tableId: a.id, recordId: a2 },
          body: { record: { fields: { Price: turn++ } } },
        }),
      5,
      1,
    );
    await measure(
      `B: update Qty of one record (B has a lookup and a rollup; nothing reads Qty)`,
      () =>
        call('update-record', {
          token,
          params: { tableId: b.id, recordId: seeded.ids[0] as string },
          body: { record: { fields: { Qty: turn++ } } },
        }),
      5,
      1,
    );
    for (const price of [20, 30]) {
      const res = await measure(
        `**A1: update Price → ${linked.toLocaleString('en')} B records recomputed** (run ${price / 10 - 1})`,
        () =>
          call('update-record', {
            token,
            params: { tableId: a.id, recordId: a1 },
            body: { record: { fields: { Price: price } } },
          }),
      );
      if (res.status !== 200) return;
    }
    // the fan-out reached every record: a view filtered on the lookup ≠ 30 must be empty
    const stale = await call('list-records', {
      token,
      params: { tableId: b.id },
      query: `filter=${encodeURIComponent(
        JSON.stringify({
          conjunction: 'or',
          filterSet: [
            { fieldId: lookup.id, operator: 'isNot', value: 30 },
            { fieldId: rollup.id, operator: 'isNot', value: 30 },
          ],
        }),
      )}&take=5`,
    });
    const sample = await call('get-record', {
      token,
      params: { tableId: b.id, recordId: seeded.ids[linked - 1] as string },
    });
    console.log(
      `\nCheck (${kind}): records of B whose lookup or rollup is not 30 after the update: ${stale.status === 200 ? stale.body.records.length : `${stale.status} ${JSON.stringify(stale.body)}`}; last record reads lookup ${JSON.stringify(sample.body?.fields?.[lookup.name])}, rollup ${JSON.stringify(sample.body?.fields?.[rollup.name])}.`,
    );
  };
  // The same updates on a plain table (no link, no computed field, no dependents) for comparison.
  const plain = await createTable('Plain', [
    { type: 'singleLineText', name: 'Name' },
    { type: 'number', name: 'Price' },
    { type: 'singleLineText', name: 'Note' },
  ]);
  const plainIds = (await createRecords(plain.id, 2, (i) => ({ Name: `P${i + 1}`, Price: 10, Note: 'n' })))
    .ids;
  console.log('##### For comparison: a plain table (no link, no computed field)\n');
  header();
  let turn = 0;
  await measure(
    'plain table: update Price of one record',
    () =>
      call('update-record', {
        token,
        params: { tableId: plain.id, recordId: plainIds[0] as string },
        body: { record: { fields: { Price: turn++ } } },
      }),
    5,
    2,
  );
  for (const oneWay of [false, true]) {
    try {
      await fanOut(oneWay);
    } catch (e) {
      console.log(`\n> fan-out (${oneWay ? 'one-way' : 'two-way'}) failed: ${(e as Error).message}\n`);
    }
  }

  // ---- 4. list page with 5 lookups + 5 formulas ----
  const size = N;
  console.log(`\n## Computed fields: a list page (take 100, view order) with 5 lookups + 5 formulas\n`);
  const d = await createTable('Catalog', [
    { type: 'singleLineText', name: 'Name' },
    { type: 'singleLineText', name: 'Code' },
    { type: 'number', name: 'Amount' },
    {
      type: 'singleSelect',
      name: 'Status',
      options: { choices: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] },
    },
    { type: 'date', name: 'Day' },
  ]);
  const catalog = await createRecords(d.id, 100, (i) => ({
    Name: `catalog ${i}`,
    Code: `C-${i}`,
    Amount: i * 2.5,
    Status: ['a', 'b', 'c'][i % 3],
    Day: new Date(Date.UTC(2026, 0, 1 + (i % 300))).toISOString(),
  }));
  const baseFields = [
    { type: 'singleLineText', name: 'Name' },
    { type: 'number', name: 'Price' },
    { type: 'number', name: 'Qty' },
    { type: 'singleLineText', name: 'Text' },
    { type: 'date', name: 'When' },
  ];
  const row = (i: number) => ({
    Name: `row ${i}`,
    Price: ((i * 37) % 1000) / 7,
    Qty: i % 13,
    Text: `some text ${i % 97}`,
    When: new Date(Date.UTC(2026, 2, 1 + (i % 200))).toISOString(),
  });
  const variants: { label: string; tableId: string; seedMs: number; error?: string }[] = [];
  {
    const t0 = await createTable('Plain fields', baseFields);
    const s = await createRecords(t0.id, size, row);
    variants.push({ label: '5 plain fields', tableId: t0.id, seedMs: s.ms, error: s.error });
  }
  {
    const t1 = await createTable('Plain + link', baseFields);
    await addField(t1.id, {
      type: 'link',
      name: 'Item',
      options: { relationship: 'manyOne', foreignTableId: d.id, isOneWay: true },
    });
    const s = await createRecords(t1.id, size, (i) => ({
      ...row(i),
      Item: { id: catalog.ids[i % catalog.ids.length] },
    }));
    variants.push({ label: '5 plain fields + a manyOne link', tableId: t1.id, seedMs: s.ms, error: s.error });
  }
  {
    const t2 = await createTable('Computed', baseFields);
    const id = (n: string) => t2.byName(n).id;
    const link = await addField(t2.id, {
      type: 'link',
      name: 'Item',
      options: { relationship: 'manyOne', foreignTableId: d.id, isOneWay: true },
    });
    for (const [name, type] of [
      ['Name', 'singleLineText'],
      ['Code', 'singleLineText'],
      ['Amount', 'number'],
      ['Status', 'singleSelect'],
      ['Day', 'date'],
    ] as const)
      await addField(t2.id, {
        type,
        isLookup: true,
        name: `${name} (lookup)`,
        lookupOptions: { foreignTableId: d.id, linkFieldId: link.id, lookupFieldId: d.byName(name).id },
      });
    for (const [name, expression] of [
      ['Total', `{${id('Price')}} * {${id('Qty')}}`],
      ['Upper', `UPPER({${id('Name')}})`],
      ['Many', `IF({${id('Qty')}} > 5, "many", "few")`],
      ['Third', `ROUND({${id('Price')}} / 3, 1)`],
      ['Joined', `CONCATENATE({${id('Text')}}, "-", {${id('Qty')}})`],
    ])
      await addField(t2.id, { type: 'formula', name, options: { expression } });
    const s = await createRecords(t2.id, size, (i) => ({
      ...row(i),
      Item: { id: catalog.ids[i % catalog.ids.length] },
    }));
    variants.push({
      label: '5 plain + link + 5 lookups + 5 formulas',
      tableId: t2.id,
      seedMs: s.ms,
      error: s.error,
    });
  }
  console.log(
    `Tables of ${num(size)} records, created through POST /table/{t}/record (1,000 a call; computed cells computed by the write): ${variants.map((v) => `${v.label} ${ms(v.seedMs)}${v.error ? ` (STOPPED: ${v.error})` : ''}`).join('; ')}. The link goes to a table of 100 records (5 fields).\n`,
  );
  header();
  for (const v of variants)
    await measure(
      `${v.label}: first page (take 100)`,
      () => call('list-records', { token, params: { tableId: v.tableId }, query: 'take=100' }),
      5,
      1,
    );
  const skip = Math.min(4900, Math.max(0, size - 100));
  for (const v of variants)
    await measure(
      `${v.label}: page ${skip / 100 + 1} (take 100, skip ${num(skip)})`,
      () => call('list-records', { token, params: { tableId: v.tableId }, query: `take=100&skip=${skip}` }),
      5,
      1,
    );
};

// Alone: its own DynamoDB Local and user.
if (isScript(import.meta.url)) await runAlone('computed', computedBench, { inProcessPurges: true });
