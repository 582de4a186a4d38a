import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  autoNumberOfDefaultKey,
  defaultOrderKey,
  keyBetween,
  keysBetween,
  MAX_KEY_LENGTH,
  type Ordered,
  planPlacement,
  upperBoundFor,
} from '#shared/ordering/order-keys.ts';

/** An in-memory view: id → key, read in key order (id breaks ties), as the service reads it. */
class ModelView {
  readonly keys = new Map<string, string>();
  rebalances = 0;
  moved = 0;
  constructor(
    ids: string[],
    private next = ids.length + 1,
  ) {
    ids.forEach((id, i) => {
      this.keys.set(id, defaultOrderKey(i + 1));
    });
  }
  order(): Ordered[] {
    return [...this.keys.entries()]
      .map(([id, key]) => ({ id, key }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.id < b.id ? -1 : 1));
  }
  ids = () => this.order().map((o) => o.id);
  /** Places `moving` (existing or new) like the service: windows doubling until the plan fits. */
  place(moving: string[], anchorId: string, position: 'before' | 'after') {
    const current = Object.fromEntries(
      moving.filter((id) => this.keys.has(id)).map((id) => [id, this.keys.get(id) as string]),
    );
    const others = this.order().filter((o) => !moving.includes(o.id));
    const at = others.findIndex((o) => o.id === anchorId);
    for (let w = 32; ; w *= 2) {
      const plan = planPlacement({
        moving,
        anchor: others[at] as Ordered,
        position,
        window: others.slice(Math.max(0, at - w), at + w + 1),
        startsList: at - w <= 0,
        endsList: at + w + 1 >= others.length,
        current,
        upperBound: upperBoundFor(this.next),
      });
      if ('widen' in plan) continue;
      if (plan.assign.some((a) => !moving.includes(a.id))) {
        this.rebalances++;
        this.moved += plan.assign.length;
      }
      for (const a of plan.assign) this.keys.set(a.id, a.key);
      return plan.assign;
    }
  }
  create(id: string) {
    this.keys.set(id, defaultOrderKey(this.next++));
  }
}

describe('keyBetween', () => {
  it('gives short keys in the open and between neighbouring default keys', () => {
    expect(keyBetween(null, null)).toHaveLength(1);
    expect(keyBetween(defaultOrderKey(1), defaultOrderKey(2))).toBe('V00000001V');
  });

  it('always lies strictly between its bounds and never ends in 0 (property)', () => {
    const digits = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'.split('');
    const key = fc
      .array(fc.constantFrom(...digits), { minLength: 1, maxLength: 12 })
      .map((d) => d.join(''))
      .filter((k) => !k.endsWith('0'));
    fc.assert(
      fc.property(key, key, (x, y) => {
        fc.pre(x !== y);
        const [a, b] = x < y ? [x, y] : [y, x];
        const k = keyBetween(a, b);
        return a < k && k < b && !k.endsWith('0');
      }),
    );
  });

  it('refuses bounds in the wrong order', () => {
    expect(() => keyBetween('b', 'a')).toThrow();
  });
});

describe('keysBetween', () => {
  it.each([1, 2, 7, 64])('gives %i increasing keys inside the bounds', (count) => {
    const keys = keysBetween(defaultOrderKey(1), defaultOrderKey(2), count);
    expect(keys).toHaveLength(count);
    expect([...keys].sort()).toEqual(keys);
    expect(new Set(keys).size).toBe(count);
    for (const k of keys) expect(k > defaultOrderKey(1) && k < defaultOrderKey(2)).toBe(true);
  });
});

describe('default keys', () => {
  it('sort by autoNumber and read back', () => {
    expect(defaultOrderKey(9) < defaultOrderKey(10)).toBe(true);
    expect(defaultOrderKey(61) < defaultOrderKey(62)).toBe(true);
    expect(autoNumberOfDefaultKey(defaultOrderKey(123_456))).toBe(123_456);
    expect(autoNumberOfDefaultKey('V00000001V')).toBeUndefined();
  });
});

describe('the contract examples (ordering.md)', () => {
  it('create 2 records before r1 → new1 new2 r1 r2 r3', () => {
    const view = new ModelView(['r1', 'r2', 'r3']);
    view.place(['new1', 'new2'], 'r1', 'before');
    expect(view.ids()).toEqual(['new1', 'new2', 'r1', 'r2', 'r3']);
  });

  it('update r3 after r1 → r1 r3 r2', () => {
    const view = new ModelView(['r1', 'r2', 'r3']);
    view.place(['r3'], 'r1', 'after');
    expect(view.ids()).toEqual(['r1', 'r3', 'r2']);
  });

  it('batch update [r3, r1] after r2 → r2 r3 r1', () => {
    const view = new ModelView(['r1', 'r2', 'r3']);
    view.place(['r3', 'r1'], 'r2', 'after');
    expect(view.ids()).toEqual(['r2', 'r3', 'r1']);
  });

  it('moving records to where they already are changes nothing', () => {
    const view = new ModelView(['r1', 'r2', 'r3']);
    expect(view.place(['r2'], 'r3', 'before')).toEqual([]);
    expect(view.place(['r1', 'r2'], 'r3', 'before')).toEqual([]);
  });

  it('records created later without a placement go to the end', () => {
    const view = new ModelView(['r1', 'r2', 'r3']);
    view.place(['r1'], 'r3', 'after');
    view.create('r4');
    expect(view.ids()).toEqual(['r2', 'r3', 'r1', 'r4']);
  });
});

describe('10,000 insertions at one spot', () => {
  it.each(['before', 'after'] as const)(
    'keep keys bounded and the order exact (%s the same anchor)',
    (position) => {
      const view = new ModelView(['r1', 'r2', 'r3']);
      const model = ['r1', 'r2', 'r3'];
      for (let i = 0; i < 10_000; i++) {
        const id = `n${i}`;
        view.place([id], 'r2', position);
        model.splice(model.indexOf('r2') + (position === 'after' ? 1 : 0), 0, id);
      }
      expect(view.ids()).toEqual(model);
      expect(Math.max(...[...view.keys.values()].map((k) => k.length))).toBeLessThanOrEqual(MAX_KEY_LENGTH);
      console.log(
        `10,000 inserts ${position} one anchor: ${view.rebalances} rebalances moved ${view.moved} records`,
      );
    },
  );

  it('keeps the order of random placements equal to a plain list model (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(), fc.boolean()), { minLength: 1, maxLength: 300 }), (moves) => {
        const view = new ModelView(['a', 'b', 'c', 'd']);
        const model = ['a', 'b', 'c', 'd'];
        moves.forEach(([pick, before], i) => {
          const anchor = model[pick % model.length] as string;
          const id = `x${i}`;
          view.place([id], anchor, before ? 'before' : 'after');
          model.splice(model.indexOf(anchor) + (before ? 0 : 1), 0, id);
        });
        return JSON.stringify(view.ids()) === JSON.stringify(model);
      }),
      { numRuns: 30 },
    );
  });
});

describe('keys next to default keys that end in 0', () => {
  it('fit strictly between autoNumbers 61 and 62 and are never a prefix of the upper one', () => {
    const a = defaultOrderKey(61);
    const b = defaultOrderKey(62);
    expect(b.endsWith('0')).toBe(true);
    const k = keyBetween(a, b);
    expect(a < k && k < b).toBe(true);
    expect(b.startsWith(k)).toBe(false);
    for (const x of keysBetween(a, b, 50)) expect(a < x && x < b && !x.endsWith('0')).toBe(true);
  });
});
