/**
 * The cross-table part of the dependency graph (computed.md 6), kept with the schema: a computed
 * field that reads another table through a link is registered in that table's schema partition
 * (`Dependent` items), so a write there knows what to recompute without reading anything else.
 */

import { ValidationError } from '#shared/core/errors.ts';
import type { TransactOp } from '#shared/db/commit.ts';
import { deleteDependentOp, putDependentOp } from '#shared/entities/schema-items.ts';
import { CYCLE_MESSAGE, foreignInputs, sameTableInputs } from '#shared/fields/dependencies.ts';
import type { Field } from '#shared/fields/field-types.ts';
import { isLinkField, isLinkLookup, linkOptionsOf } from '#shared/fields/link-options.ts';
import { type LookupOptions, lookupIds } from '#shared/fields/lookup.ts';
import { bumpSchemaOp, type Dependent, loadSchema } from '#shared/schema/schema.ts';

interface Entry {
  readTableId: string;
  dependent: Dependent;
}

/** Where a field reads through links: one hop (foreignInputs), and titles two links away. */
const entriesOf = async (
  tableId: string,
  field: Field | undefined,
  fields: readonly Field[],
): Promise<Entry[]> => {
  if (!field) return [];
  const direct = foreignInputs(field, fields).map(
    (reach): Entry => ({
      readTableId: reach.readTableId,
      dependent: { tableId, fieldId: field.id, linkFieldId: reach.linkFieldId, inputs: reach.inputs },
    }),
  );
  return [...direct, ...(await twoHops(tableId, field, fields))];
};

/**
 * Titles two links away: a rollup of a link field reads the titles of the records that field
 * links; a formula over a lookup of a link reads them too. Registered in the far table with the
 * middle link as `via`.
 */
const twoHops = async (tableId: string, field: Field, fields: readonly Field[]): Promise<Entry[]> => {
  const entry = (
    lookup: LookupOptions,
    farLink: Field | { id: string; options: Field['options'] },
  ): Entry => ({
    readTableId: linkOptionsOf(farLink.options).foreignTableId,
    dependent: {
      tableId,
      fieldId: field.id,
      linkFieldId: lookup.linkFieldId,
      inputs: [linkOptionsOf(farLink.options).lookupFieldId].filter((id): id is string => id !== undefined),
      via: { tableId: lookup.foreignTableId, linkFieldId: farLink.id },
    },
  });
  if (field.type === 'rollup') {
    const lookup = lookupIds(field);
    if (!lookup) return [];
    const there = await loadSchema(lookup.foreignTableId).catch(() => undefined);
    const far = there?.fields.find((f) => f.id === lookup.lookupFieldId && isLinkField(f));
    return far ? [entry(lookup, far)] : [];
  }
  if (field.type !== 'formula' || field.isLookup) return [];
  return sameTableInputs(field).flatMap((id) => {
    const ref = fields.find((f) => f.id === id && isLinkLookup(f));
    const lookup = ref ? lookupIds(ref) : undefined;
    return ref && lookup ? [entry(lookup, { id: lookup.lookupFieldId, options: ref.options })] : [];
  });
};

/**
 * The operations that move a field's registrations from what `before` read to what `after`
 * reads (either may be undefined: a field created or deleted), bumping the schema version of
 * every other table whose registrations change (their cached schemas reload). The table's own
 * version is the caller's to bump.
 */
export const dependentOps = async (
  tableId: string,
  before: Field | undefined,
  after: Field | undefined,
  fieldsBefore: readonly Field[],
  fieldsAfter: readonly Field[],
): Promise<TransactOp[]> => {
  const old = await entriesOf(tableId, before, fieldsBefore);
  const next = await entriesOf(tableId, after, fieldsAfter);
  const sameEntry = (a: (typeof old)[number], b: (typeof old)[number]) =>
    a.readTableId === b.readTableId && JSON.stringify(a.dependent) === JSON.stringify(b.dependent);
  const removed = old.filter((o) => !next.some((n) => sameEntry(n, o)));
  const added = next.filter((n) => !old.some((o) => sameEntry(n, o)));
  const ops: TransactOp[] = [
    ...removed
      .filter(
        (r) =>
          !added.some(
            (a) => a.readTableId === r.readTableId && a.dependent.linkFieldId === r.dependent.linkFieldId,
          ),
      )
      .map((r) => deleteDependentOp(r.readTableId, tableId, r.dependent.fieldId, r.dependent.linkFieldId)),
    ...added.map((a) => putDependentOp(a.readTableId, a.dependent)),
  ];
  const touched = new Set([...removed, ...added].map((e) => e.readTableId).filter((id) => id !== tableId));
  for (const readTableId of touched) {
    const schema = await loadSchema(readTableId).catch(() => undefined);
    if (schema) ops.push(bumpSchemaOp(readTableId, schema.version));
  }
  return ops;
};

/**
 * Refuses a computed field that would read itself through other tables (computed.md 6: a cycle
 * is a 400 `field reference has cycle`, naming it). Follows what `field` reads, across links,
 * with `fields` as its table's fields once the change lands; other tables as stored.
 */
export const assertNoCrossTableCycle = async (
  tableId: string,
  fields: readonly Field[],
  field: Field,
): Promise<void> => {
  const schemas = new Map<string, readonly Field[] | undefined>([[tableId, fields]]);
  const fieldsOf = async (id: string) => {
    if (!schemas.has(id)) schemas.set(id, (await loadSchema(id).catch(() => undefined))?.fields);
    return schemas.get(id);
  };
  const done = new Set<string>();
  const visit = async (at: string, f: Field, path: string[]): Promise<void> => {
    const node = `${at}/${f.id}`;
    if (path.length > 0 && at === tableId && f.id === field.id)
      throw new ValidationError(`${CYCLE_MESSAGE}: ${[...path, f.name].join(' → ')}`);
    if (done.has(node)) return;
    done.add(node);
    const here = (await fieldsOf(at)) ?? [];
    for (const id of sameTableInputs(f)) {
      const input = here.find((x) => x.id === id);
      if (input) await visit(at, input, [...path, f.name]);
    }
    for (const reach of foreignInputs(f, here)) {
      const there = (await fieldsOf(reach.readTableId)) ?? [];
      for (const id of reach.inputs) {
        const input = there.find((x) => x.id === id);
        if (input) await visit(reach.readTableId, input, [...path, f.name]);
      }
    }
  };
  await visit(tableId, field, []);
};
