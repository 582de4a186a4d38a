// Ours, not `qs`: the contract's list rules (`k=a&k=b`, `k[]=a`, `k[0]=a` all lists; a bare `k=a`
// a string) and a key limit in 60 lines, where `qs` would add nested objects we must then refuse.
/** A parsed query: one string per key, or a list when the key was repeated or bracketed. */
export type ParsedQuery = Record<string, string | string[]>;

const MAX_KEYS = 200;

/**
 * Parses a raw query string per the contract: `k[]=a&k[]=b`, `k=a&k=b` and `k[0]=a&k[1]=b` are
 * lists; a bracketed key is a list even with one value; a bare single `k=a` stays a string (the
 * route's schema reads it as a one-element list where it wants one). Pure; never throws.
 */
export const parseQueryString = (raw: string | undefined): ParsedQuery => {
  // A Map, not an object: keys such as `constructor` or `__proto__` must not meet inherited members.
  const out = new Map<string, string | string[]>();
  if (!raw) return {};
  const indexed = new Map<string, Map<number, string>>();
  let count = 0;
  for (const [rawKey, value] of new URLSearchParams(raw)) {
    if (++count > MAX_KEYS * 10) break;
    const bracket = /^(.+?)\[(\d*)\]$/.exec(rawKey);
    if (bracket) {
      const key = bracket[1] as string;
      const index = bracket[2];
      if (index !== undefined && index !== '') {
        const n = Number(index);
        if (n <= 10_000) {
          const slots = indexed.get(key) ?? new Map<number, string>();
          slots.set(n, value);
          indexed.set(key, slots);
          continue;
        }
      }
      const prev = out.get(key);
      out.set(key, prev === undefined ? [value] : [...(Array.isArray(prev) ? prev : [prev]), value]);
      continue;
    }
    const prev = out.get(rawKey);
    out.set(rawKey, prev === undefined ? value : [...(Array.isArray(prev) ? prev : [prev]), value]);
  }
  for (const [key, slots] of indexed) {
    const ordered = [...slots.entries()].sort((a, b) => a[0] - b[0]).map(([, v]) => v);
    const prev = out.get(key);
    out.set(key, [...(prev === undefined ? [] : Array.isArray(prev) ? prev : [prev]), ...ordered]);
  }
  return Object.fromEntries(out);
};
