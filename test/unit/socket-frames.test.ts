import { describe, expect, it } from 'vitest';
import { type Collection, parseCollection } from '#shared/live/sharedb/collections.ts';
import { bytesOf, splitFrames } from '#shared/live/sharedb/frames.ts';
import { ShareDbHub } from '#shared/live/sharedb/socket-hub.ts';

/** A json0-free model of the client: applies a qs answer and the query diffs that follow it. */
const replay = (frames: string[]) => {
  const messages = frames.map((f) => JSON.parse(f));
  const [first, ...rest] = messages;
  const docs = [...first.data];
  for (const m of rest) {
    expect(m).toMatchObject({ a: 'q', id: first.id });
    for (const d of m.diff) docs.splice(d.index, 0, ...d.values);
  }
  return docs;
};

const doc = (i: number, size: number) => ({
  d: `rec${i}`,
  v: 1,
  data: { id: `rec${i}`, fields: { t: 'é'.repeat(size) } },
});

describe('splitFrames (API Gateway posts 128 KB at most)', () => {
  it('leaves a message within the limit as it is', () => {
    const text = JSON.stringify({ a: 'qs', id: 1, data: [doc(1, 10)] });
    expect(splitFrames(text, 1024)).toEqual([text]);
  });

  it('cuts a query answer into its first docs and inserts of the rest, each within the limit, in order', () => {
    const docs = Array.from({ length: 50 }, (_, i) => doc(i, 300 + i * 7));
    const text = JSON.stringify({ a: 'qs', id: 7, data: docs, extra: { groupPoints: [] } });
    const frames = splitFrames(text, 4096);
    expect(frames.length).toBeGreaterThan(5);
    for (const f of frames) expect(bytesOf(f)).toBeLessThanOrEqual(4096);
    expect(JSON.parse(frames[0] as string).extra).toEqual({ groupPoints: [] });
    expect(replay(frames)).toEqual(docs);
  });

  it('cuts a diff with a large insert into inserts at successive positions, keeping the other diffs', () => {
    const values = Array.from({ length: 20 }, (_, i) => doc(i, 500));
    const diff = [
      { type: 'remove', index: 0, howMany: 1 },
      { type: 'insert', index: 3, values },
    ];
    const frames = splitFrames(JSON.stringify({ a: 'q', id: 2, diff }), 2048);
    const parsed = frames.map((f) => JSON.parse(f));
    expect(parsed[0]).toEqual({ a: 'q', id: 2, diff: [diff[0]] });
    const inserts = parsed.slice(1).map((m) => m.diff[0]);
    expect(inserts.flatMap((d) => d.values)).toEqual(values);
    let at = 3;
    for (const d of inserts) {
      expect(d.index).toBe(at);
      at += d.values.length;
    }
    for (const f of frames) expect(bytesOf(f)).toBeLessThanOrEqual(2048);
  });

  it('cuts a bulk answer into answers of the same request, each doc once', () => {
    const data = Object.fromEntries(
      Array.from({ length: 30 }, (_, i) => [`rec${i}`, { v: 1, data: { t: 'x'.repeat(400) } }]),
    );
    const frames = splitFrames(JSON.stringify({ a: 'bs', c: 'rec_tbl1', data }), 2048).map((f) =>
      JSON.parse(f),
    );
    expect(frames.length).toBeGreaterThan(3);
    for (const f of frames) expect(f).toMatchObject({ a: 'bs', c: 'rec_tbl1' });
    expect(Object.assign({}, ...frames.map((f) => f.data))).toEqual(data);
  });

  it('answers a single doc or op too large with the error too_large for that request, without its data', () => {
    const op = {
      a: 'op',
      c: 'rec_tbl1',
      d: 'rec1',
      v: 3,
      seq: 9,
      op: [{ p: ['fields'], oi: { t: 'x'.repeat(5000) } }],
    };
    const [frame] = splitFrames(JSON.stringify(op), 1024);
    expect(JSON.parse(frame as string)).toEqual({
      a: 'op',
      c: 'rec_tbl1',
      d: 'rec1',
      v: 3,
      seq: 9,
      error: { code: 'too_large', message: expect.stringContaining('1 KB') },
    });
    const qf = JSON.stringify({ a: 'qf', id: 3, data: [doc(1, 5000)] });
    expect(JSON.parse(splitFrames(qf, 1024)[0] as string)).toMatchObject({
      a: 'qf',
      id: 3,
      error: { code: 'too_large' },
    });
  });
});

describe('a ShareDB session kept as JSON (the cloud keeps it between messages)', () => {
  it('comes back as it was, with records’ data left out unless asked for, and names its topics', () => {
    const hub = new ShareDbHub();
    const a = hub.adopt({ send: () => undefined, close: () => undefined }, undefined);
    a.handshaken = true;
    a.queries.set(4, {
      id: 4,
      collection: parseCollection('rec_tbl1') as Collection,
      query: { viewId: 'viw1' },
      ids: ['rec1'],
      extra: { n: 1 },
    });
    a.knownIn('rec_tbl1').set('rec1', { v: 3, data: { id: 'rec1', fields: {} } });
    a.knownIn('fld_tbl1').set('fld1', { v: 2, data: { id: 'fld1', name: 'Name' } });
    a.subscribed.set('fld_tbl1', new Set(['fld1']));
    a.channels.add('__action_trigger_tbl1');
    const state = a.toState();
    expect(state.known).toEqual({
      rec_tbl1: { rec1: [3] },
      fld_tbl1: { fld1: [2, { id: 'fld1', name: 'Name' }] },
    });
    expect(a.toState(true).known.rec_tbl1).toEqual({ rec1: [3, { id: 'rec1', fields: {} }] });
    const b = hub.adopt({ send: () => undefined, close: () => undefined }, undefined);
    b.restore(JSON.parse(JSON.stringify(state)));
    expect(b.toState()).toEqual(state);
    expect(b.id).toBe(a.id);
    expect(b.topics().sort()).toEqual(['__action_trigger_tbl1', 'fld_tbl1', 'rec_tbl1']);
  });
});
