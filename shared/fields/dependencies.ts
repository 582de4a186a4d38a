/**
 * The dependency graph of a table's computed fields (computed.md 6): which fields each one reads,
 * the order to compute them in, and cycle refusal. Pure; the graph is part of the schema, so a
 * write never reads anything to learn what to recompute.
 */

import { ValidationError } from '#shared/core/errors.ts';
import { referencesOf } from '#shared/formula/parse.ts';
import type { Field } from './field-types.ts';
import { isLinkField, linkOptionsOf } from './link-options.ts';

/** The message of a reference cycle (computed.md 6). */
export const CYCLE_MESSAGE = 'field reference has cycle';

/** True for the fields whose cells are computed from others: formulas, lookups and rollups. */
export const isDerived = (field: Field): boolean =>
  field.isLookup === true || field.type === 'rollup' || (field.type === 'formula' && !field.isLookup);

/** A formula field's expression as stored (`''` when it has none). */
export const formulaExpression = (field: Field): string =>
  typeof field.options.expression === 'string' ? field.options.expression : '';

/** The fields of its own table a computed field reads: a formula's references, a lookup's or rollup's link. */
export const sameTableInputs = (field: Field): string[] => {
  if (field.isLookup || field.type === 'rollup') {
    const link = field.lookupOptions?.linkFieldId;
    return typeof link === 'string' ? [link] : [];
  }
  if (field.type === 'formula') return referencesOf(formulaExpression(field));
  return [];
};

/**
 * Where a computed field reads other tables (or its own) through links: per link, the table it
 * reaches and the fields read there. A lookup or rollup reads its looked-up field; a formula that
 * references a link reads the titles, i.e. the foreign primary field.
 */
export const foreignInputs = (
  field: Field,
  fields: readonly Field[],
): { readTableId: string; linkFieldId: string; inputs: string[] }[] => {
  if (field.isLookup || field.type === 'rollup') {
    const { linkFieldId, foreignTableId, lookupFieldId } = field.lookupOptions ?? {};
    return typeof linkFieldId === 'string' &&
      typeof foreignTableId === 'string' &&
      typeof lookupFieldId === 'string'
      ? [{ readTableId: foreignTableId, linkFieldId, inputs: [lookupFieldId] }]
      : [];
  }
  if (field.type !== 'formula') return [];
  return sameTableInputs(field).flatMap((id) => {
    const link = fields.find((f) => f.id === id && isLinkField(f));
    if (!link) return [];
    return [
      {
        readTableId: linkOptionsOf(link.options).foreignTableId,
        linkFieldId: link.id,
        inputs: [linkOptionsOf(link.options).lookupFieldId].filter((id): id is string => id !== undefined),
      },
    ];
  });
};

/**
 * The table's computed fields in an order where every field comes after the fields it reads.
 * A cycle is a 400 `field reference has cycle` naming the fields on it.
 */
export const computeOrder = (fields: readonly Field[]): Field[] => {
  const byId = new Map(fields.map((f) => [f.id, f]));
  const state = new Map<string, 'visiting' | 'done'>();
  const out: Field[] = [];
  const visit = (field: Field, path: Field[]): void => {
    const seen = state.get(field.id);
    if (seen === 'done') return;
    if (seen === 'visiting') {
      const cycle = [...path.slice(path.indexOf(field)), field].map((f) => f.name);
      throw new ValidationError(`${CYCLE_MESSAGE}: ${cycle.join(' → ')}`);
    }
    state.set(field.id, 'visiting');
    for (const id of sameTableInputs(field)) {
      const input = byId.get(id);
      if (input) visit(input, [...path, field]);
    }
    state.set(field.id, 'done');
    if (isDerived(field)) out.push(field);
  };
  for (const field of fields) visit(field, []);
  return out;
};

/** Refuses a table whose computed fields read each other around a loop. */
export const assertNoCycle = (fields: readonly Field[]): void => {
  computeOrder(fields);
};

/** Every field that reads `changed` (directly or through other computed fields), in compute order. */
export const dependentsOf = (fields: readonly Field[], changed: ReadonlySet<string>): Field[] => {
  const dirty = new Set(changed);
  const out: Field[] = [];
  for (const field of computeOrder(fields)) {
    if (sameTableInputs(field).some((id) => dirty.has(id))) {
      dirty.add(field.id);
      out.push(field);
    }
  }
  return out;
};
