import { describe, expect, it } from 'vitest';
import { chunkSteps, type Step, undoOf } from '#shared/db/commit.ts';

/** A record update (versioned undo) with `n` joined entry steps, all for record `id`. */
const group = (id: string, n: number): Step[] => [
  {
    op: {
      update: { key: { pk: 'R', sk: id }, update: 'SET ord.#v = :k', condition: 'attribute_exists(pk)' },
    },
    undo: { put: { pk: 'R', sk: id, version: 3 } },
    joined: n,
  },
  ...Array.from({ length: n }, (_, i) => ({
    op: { put: { pk: 'E', sk: `${id}#${i}` }, condition: 'attribute_not_exists(pk)' },
    undo: { delete: { pk: 'E', sk: `${id}#${i}` } },
  })),
];

describe('joined steps (a record and its index entries)', () => {
  it('are never split across chunks, whatever the offset', () => {
    for (let lead = 0; lead < 5; lead++) {
      const single: Step[] = Array.from({ length: lead }, (_, i) => ({
        op: { put: { pk: 'X', sk: `${i}` }, condition: 'attribute_not_exists(pk)' },
        undo: { delete: { pk: 'X', sk: `${i}` } },
      }));
      const steps = [...single, ...Array.from({ length: 60 }, (_, i) => group(`r${i}`, 3)).flat()];
      const chunks = chunkSteps(steps);
      expect(chunks.flat()).toEqual(steps);
      for (const chunk of chunks) {
        expect(chunk.length + 1).toBeLessThan(100);
        // A chunk starts at a group's lead or a single step, never inside a group.
        expect(chunk[0]?.op).not.toHaveProperty('put.sk', expect.stringMatching(/^r\d+#/));
        const first = chunk.findIndex((s) => s.joined);
        if (first >= 0) expect(chunk.slice(first).length % 4).toBe(0);
      }
    }
  });

  it('undo as one group: the lead guarded by the version it wrote and put back at the next, then the joined undos', () => {
    const undo = undoOf(group('r1', 2));
    expect(undo).toEqual([
      [
        {
          put: { pk: 'R', sk: 'r1', version: 5 },
          condition: '#v = :v',
          names: { '#v': 'version' },
          values: { ':v': 4 },
        },
        { delete: { pk: 'E', sk: 'r1#0' } },
        { delete: { pk: 'E', sk: 'r1#1' } },
      ],
    ]);
  });

  it('steps without joined steps keep one undo each', () => {
    const steps: Step[] = [
      { op: { put: { pk: 'A', sk: '1' } }, undo: { delete: { pk: 'A', sk: '1' } } },
      { op: { delete: { pk: 'A', sk: '2' } }, undo: null },
    ];
    expect(undoOf(steps)).toEqual([{ delete: { pk: 'A', sk: '1' } }]);
  });
});
