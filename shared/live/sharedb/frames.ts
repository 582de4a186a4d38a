/**
 * Messages cut to a size limit (API Gateway posts 128 KB at most to a WebSocket connection), in
 * ShareDB's own terms so that the client ends up where the one large message would have put it:
 *
 * - a query's subscribe answer (`qs`) keeps the first docs that fit; the rest follow as the
 *   query's diffs, inserts at the end (the client's `insert` events, as when rows arrive);
 * - a query's diff (`q`) is cut into several diffs applied in turn (an insert of many docs into
 *   inserts of fewer at successive positions);
 * - a bulk answer (`bf`, `bs`) into several answers of the same request, each with some docs
 *   (the client handles each doc of an answer on its own);
 * - anything else too large on its own (one doc, one op, a query fetch `qf`) becomes the error
 *   `too_large` for that request or doc, which says so instead of leaving the client waiting.
 *
 * Pure.
 */

type Message = Record<string, unknown>;

export const bytesOf = (text: string): number => Buffer.byteLength(text, 'utf8');

/** Splits items into runs whose JSON, in a message of `overhead` bytes, stays within `max`. */
const runs = <T>(items: readonly T[], overhead: number, max: number): T[][] | undefined => {
  const out: T[][] = [];
  let run: T[] = [];
  let size = overhead;
  for (const item of items) {
    const n = bytesOf(JSON.stringify(item)) + 1;
    if (overhead + n > max) return undefined;
    if (size + n > max && run.length) {
      out.push(run);
      run = [];
      size = overhead;
    }
    run.push(item);
    size += n;
  }
  if (run.length || !out.length) out.push(run);
  return out;
};

const tooLarge = (m: Message, max: number): string => {
  const { data: _data, op: _op, diff: _diff, create: _create, ...rest } = m;
  return JSON.stringify({
    ...rest,
    error: {
      code: 'too_large',
      message: `The answer is larger than the socket carries (${Math.floor(max / 1024)} KB a message); read it over the REST API`,
    },
  });
};

/** The messages that carry `text` within `max` bytes each. */
export const splitFrames = (text: string, max: number): string[] => {
  if (bytesOf(text) <= max) return [text];
  const m = JSON.parse(text) as Message;
  if (m.a === 'qs' && Array.isArray(m.data)) {
    const head = bytesOf(JSON.stringify({ ...m, data: [] }));
    const parts = runs(m.data, Math.max(head, 200), max);
    if (parts) {
      const [first = [], ...more] = parts;
      let index = first.length;
      return [
        JSON.stringify({ ...m, data: first }),
        ...more.map((values) => {
          const diff = { a: 'q', id: m.id, diff: [{ type: 'insert', index, values }] };
          index += values.length;
          return JSON.stringify(diff);
        }),
      ];
    }
  }
  if (m.a === 'q' && Array.isArray(m.diff)) {
    const out: string[] = [];
    for (const d of m.diff as Message[]) {
      const one = JSON.stringify({ a: 'q', id: m.id, diff: [d] });
      if (bytesOf(one) <= max) {
        out.push(one);
        continue;
      }
      const values = d.type === 'insert' && Array.isArray(d.values) ? (d.values as unknown[]) : undefined;
      const parts = values && runs(values, 200, max);
      if (!parts) return [tooLarge(m, max)];
      let index = Number(d.index);
      for (const part of parts) {
        out.push(JSON.stringify({ a: 'q', id: m.id, diff: [{ type: 'insert', index, values: part }] }));
        index += part.length;
      }
    }
    return out;
  }
  if ((m.a === 'bf' || m.a === 'bs') && m.data && typeof m.data === 'object' && !Array.isArray(m.data)) {
    const parts = runs(Object.entries(m.data as Message), bytesOf(JSON.stringify({ ...m, data: {} })), max);
    if (parts) return parts.map((entries) => JSON.stringify({ ...m, data: Object.fromEntries(entries) }));
  }
  return [tooLarge(m, max)];
};
