// Ours, not `fractional-indexing`: keys must sort alike in JavaScript and DynamoDB's byte order,
// start from the autoNumber (default order needs no stored key) and report length for rebalancing.
/**
 * Order keys of views' manual order (ordering.md). Keys are strings of base62 digits compared as
 * plain strings (JavaScript `<` and DynamoDB's byte order agree), read as fractions 0.d1d2d3…,
 * and never end in '0', so there is always a key between two keys. Pure.
 */
const DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BASE = DIGITS.length;

/** A generated key longer than this means the neighbourhood must be rebalanced. */
export const MAX_KEY_LENGTH = 64;

/** Width of the autoNumber in a default key (62^8 ≈ 2.2e14 records). */
const NUMBER_WIDTH = 8;

/**
 * The key of a record without a place of its own in a view: its autoNumber, so a view without
 * manual order lists by autoNumber. `V` leaves room below (keys placed before the first record).
 */
export const defaultOrderKey = (autoNumber: number): string => {
  let n = Math.max(0, Math.floor(autoNumber));
  let out = '';
  for (let i = 0; i < NUMBER_WIDTH; i++) {
    out = DIGITS[n % BASE] + out;
    n = Math.floor(n / BASE);
  }
  // A trailing '0' is allowed here: default keys are never bisected from the right (see midpoint).
  return `V${out}`;
};

/** The autoNumber of a default key, or undefined for a key placed by hand. */
export const autoNumberOfDefaultKey = (key: string): number | undefined => {
  if (key.length !== NUMBER_WIDTH + 1 || key[0] !== 'V') return undefined;
  let n = 0;
  for (const c of key.slice(1)) {
    const d = DIGITS.indexOf(c);
    if (d < 0) return undefined;
    n = n * BASE + d;
  }
  return n;
};

/**
 * The upper bound for "after the last record": the default key of the table's next autoNumber.
 * Keys placed below it stay below every record created later, which go to the end.
 */
export const upperBoundFor = (nextAutoNumber: number): string => defaultOrderKey(nextAutoNumber);

const digit = (s: string, i: number): number => (i < s.length ? DIGITS.indexOf(s[i] as string) : 0);

/**
 * A key strictly between `a` and `b` (both read as base62 fractions; `b` null = 1), as short as
 * possible, not ending in '0'. `a` may end in '0' (default keys); trailing zeros of `a` carry no value.
 */
const midpoint = (a: string, b: string | null): string => {
  let prefix = '';
  let i = 0;
  if (b !== null) {
    // Common prefix (a padded with zeros).
    while (i < b.length && digit(a, i) === digit(b, i)) {
      prefix += b[i];
      i++;
    }
  }
  for (;;) {
    const da = digit(a, i);
    const db = b === null || i >= b.length ? BASE : digit(b, i);
    if (db - da > 1) return prefix + DIGITS[Math.floor((da + db) / 2)];
    // Adjacent digits: take a's digit and look for room further right, above the rest of a.
    prefix += DIGITS[da];
    i++;
    b = null;
  }
};

/** A key strictly between `a` and `b` (null: open end). Throws when `a >= b`. */
export const keyBetween = (a: string | null, b: string | null): string => {
  if (a !== null && b !== null && a >= b) throw new Error(`keyBetween: ${a} is not below ${b}`);
  return midpoint(a ?? '', b);
};

/** `count` increasing keys strictly between `a` and `b`, evenly spread by bisection. */
export const keysBetween = (a: string | null, b: string | null, count: number): string[] => {
  if (count <= 0) return [];
  const mid = keyBetween(a, b);
  const left = Math.floor((count - 1) / 2);
  return [...keysBetween(a, mid, left), mid, ...keysBetween(mid, b, count - 1 - left)];
};

export interface Ordered {
  id: string;
  key: string;
}

export interface PlacementInput {
  /** Records to place, in request order. */
  moving: readonly string[];
  anchor: Ordered;
  position: 'before' | 'after';
  /**
   * Records around the anchor in current order, the anchor included, the moving records left
   * out; as many as were read on each side (fewer than asked means the list ends there).
   */
  window: readonly Ordered[];
  /** True when the window reaches the first / last record of the view. */
  startsList: boolean;
  endsList: boolean;
  /** Current keys of moving records that already exist (to detect a move to where they are). */
  current: Readonly<Record<string, string>>;
  /** The default key of the table's next autoNumber (see `upperBoundFor`). */
  upperBound: string;
}

/** Keys of a rebalance must leave this many characters of room for the inserts that follow. */
const REBALANCE_HEADROOM = 16;

/**
 * Decides the keys of a placement: the moving records get keys immediately before or after the
 * anchor, in request order, every other record keeping its relative order. When the gap is too
 * narrow for keys of at most MAX_KEY_LENGTH, the window is rebalanced: its records (the outer
 * ones kept as bounds unless the window reaches an end of the list) get fresh evenly spread keys
 * that leave room for later inserts; when even that does not fit, the answer is `widen` and the
 * caller retries with a window twice as wide (list labelling: a hot spot spreads over an ever
 * larger neighbourhood, so key length stays bounded). A move to where the records already are
 * assigns nothing.
 */
export const planPlacement = (input: PlacementInput): { assign: Ordered[] } | { widen: true } => {
  const { window, anchor, moving } = input;
  const at = window.findIndex((o) => o.id === anchor.id);
  if (at < 0) throw new Error('planPlacement: the anchor is not in the window');
  const lower = input.position === 'before' ? (window[at - 1]?.key ?? null) : anchor.key;
  const upper = input.position === 'before' ? anchor.key : (window[at + 1]?.key ?? input.upperBound);

  const currentKeys = moving.map((id) => input.current[id]);
  if (
    currentKeys.every((k): k is string => k !== undefined) &&
    currentKeys.every(
      (k, i) => (lower === null || k > lower) && k < upper && (i === 0 || k > (currentKeys[i - 1] as string)),
    )
  )
    return { assign: [] };

  const keys = keysBetween(lower, upper, moving.length);
  if (keys.every((k) => k.length <= MAX_KEY_LENGTH))
    return { assign: moving.map((id, i) => ({ id, key: keys[i] as string })) };

  // Rebalance: the window with the moving records in their new place, spread evenly.
  const insertAt = input.position === 'before' ? at : at + 1;
  const sequence = [
    ...window.slice(0, insertAt).map((o) => o.id),
    ...moving,
    ...window.slice(insertAt).map((o) => o.id),
  ];
  const first = window[0] as Ordered;
  const last = window[window.length - 1] as Ordered;
  const lo = input.startsList ? null : first.key;
  const hi = input.endsList ? input.upperBound : last.key;
  const interior = sequence.slice(
    input.startsList ? 0 : 1,
    input.endsList ? sequence.length : sequence.length - 1,
  );
  const spread = keysBetween(lo, hi, interior.length);
  if (spread.some((k) => k.length > MAX_KEY_LENGTH - REBALANCE_HEADROOM)) {
    if (input.startsList && input.endsList)
      throw new Error('planPlacement: no room even over the whole list');
    return { widen: true };
  }
  const byId = new Map(window.map((o) => [o.id, o.key]));
  return {
    assign: interior
      .map((id, i) => ({ id, key: spread[i] as string }))
      .filter((o) => byId.get(o.id) !== o.key),
  };
};
