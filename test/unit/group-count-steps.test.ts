/**
 * The group-count steps a record write adds for a grouped view index (records/view-indexes/upkeep.ts):
 * one per group tuple whose entries the write changes, with the sum of what it brings and takes
 * away, a move within a tuple included (sum 0: it still marks the tuple written, which a build's
 * settle watches), and none for a write that leaves every entry in place.
 */
import { describe, expect, it } from 'vitest';
import type { RecordItem } from '#shared/entities/records.ts';
import type { Field } from '#shared/fields/field-types.ts';
import { groupCountSteps } from '#shared/records/view-indexes/upkeep.ts';
import type { TableSchema } from '#shared/schema/schema.ts';

const field = (id: string, type: string, options: Record<string, unknown> = {}) =>
  ({ id, name: id, type, options }) as unknown as Field;

const schema = {
  table: { id: 'tblA', autoNumber: 10 },
  fields: [
    field('fldName', 'singleLineText'),
    field('fldNote', 'singleLineText'),
    field('fldCount', 'number', { formatting: { type: 'decimal', precision: 0 } }),
  ],
  views: [
    {
      id: 'viwA',
      type: 'grid',
      sort: { sortObjs: [{ fieldId: 'fldCount', order: 'asc' }] },
      group: [{ fieldId: 'fldNote', order: 'asc' }],
    },
  ],
} as unknown as TableSchema;

const record = (id: string, cells: Record<string, unknown>) =>
  ({ id, autoNumber: 1, version: 1, ...cells }) as unknown as RecordItem;

/** Each step's tuple (its Note) and what it adds to the count and to the write counter. */
const stepsOf = (moves: Parameters<typeof groupCountSteps>[1]) =>
  groupCountSteps(schema, moves).map((step) => {
    const update = 'update' in step.op ? step.op.update : undefined;
    const values = update?.values ?? {};
    return {
      note: (values[':r'] as Record<string, unknown>).fldNote,
      delta: values[':d'],
      writes: values[':one'],
    };
  });

describe('group-count steps of a write', () => {
  const a = record('recA', { fldNote: 'x', fldCount: 1 });

  it('a record that moves within its tuple marks it written, its count unmoved', () => {
    expect(stepsOf([{ before: a, after: { ...a, fldCount: 5 } }])).toEqual([
      { note: 'x', delta: 0, writes: 1 },
    ]);
  });

  it('a record that changes tuples takes one from the old and brings one to the new', () => {
    expect(stepsOf([{ before: a, after: { ...a, fldNote: 'y' } }])).toEqual([
      { note: 'x', delta: -1, writes: 1 },
      { note: 'y', delta: 1, writes: 1 },
    ]);
  });

  it('two records swapping tuples in one write mark both written with sum 0', () => {
    const b = record('recB', { fldNote: 'y', fldCount: 2 });
    expect(
      stepsOf([
        { before: a, after: { ...a, fldNote: 'y' } },
        { before: b, after: { ...b, fldNote: 'x' } },
      ]),
    ).toEqual([
      { note: 'x', delta: 0, writes: 1 },
      { note: 'y', delta: 0, writes: 1 },
    ]);
  });

  it('a write that leaves every entry in place (a field the view does not read) adds no step', () => {
    expect(stepsOf([{ before: a, after: { ...a, fldName: 'renamed' } }])).toEqual([]);
  });

  it('a create brings one, a delete takes one', () => {
    expect(stepsOf([{ after: a }])).toEqual([{ note: 'x', delta: 1, writes: 1 }]);
    expect(stepsOf([{ before: a }])).toEqual([{ note: 'x', delta: -1, writes: 1 }]);
  });
});
