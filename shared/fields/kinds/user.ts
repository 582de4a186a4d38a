/** user (fields.md "Types", "Writing values"): collaborators of the space. */

import type { Converted, Field, FieldKind, UserRef, WriteContext } from '../field-types.ts';
import {
  cellError,
  isNothing,
  isRecord,
  optionalBoolean,
  optionsError,
  readOptions,
  splitList,
  textOf,
} from '../kind-helpers.ts';

const isMultiple = (options: Record<string, unknown>): boolean => options.isMultiple === true;

/** Only `{id, title, email}` is stored, whatever else the collaborator record carries. */
const refOf = (user: UserRef): UserRef => ({ id: user.id, title: user.title, email: user.email });

/**
 * A user cell as answered: `{id, title, email, avatarUrl}`, `avatarUrl` null (no avatars are
 * stored; teable-routes.md 4). Lists item by item.
 */
export const userCellOut = (value: unknown): unknown => {
  const one = (v: unknown) => (isRecord(v) ? { ...v, avatarUrl: v.avatarUrl ?? null } : v);
  return Array.isArray(value) ? value.map(one) : one(value);
};

/** Single fields store one UserRef, multiple fields a list; nothing left clears the cell. */
const store = (users: UserRef[], field: Field): Converted => {
  const seen = new Set<string>();
  const refs = users.filter((u) => !seen.has(u.id) && seen.add(u.id)).map(refOf);
  if (refs.length === 0) return { value: undefined };
  return { value: isMultiple(field.options) ? refs : (refs[0] as UserRef) };
};

/**
 * The collaborator a typecast text stands for: its id, else its email (any case), else its name
 * (exact, then any case); a text matching several people matches nobody.
 */
export const findCollaborator = (text: string, collaborators: readonly UserRef[]): UserRef | undefined => {
  const t = text.trim();
  if (t === '') return undefined;
  const byId = collaborators.find((c) => c.id === t);
  if (byId) return byId;
  const lower = t.toLowerCase();
  const tries = [
    (c: UserRef) => c.email.toLowerCase() === lower,
    (c: UserRef) => c.title === t,
    (c: UserRef) => c.title.toLowerCase() === lower,
  ];
  for (const matches of tries) {
    const found = collaborators.filter(matches);
    if (found.length === 1) return found[0];
    if (found.length > 1) return undefined;
  }
  return undefined;
};

/**
 * The texts a typecast value holds: comma-separated text, or a list of texts or user objects. A
 * single field tries the whole text first (a name may hold a comma), then each item of it.
 */
const userTextsOf = (value: unknown, multiple: boolean): string[] => {
  if (typeof value === 'string') return multiple ? splitList(value) : [value, ...splitList(value)];
  if (Array.isArray(value)) return value.flatMap((item) => userTextsOf(item, false));
  if (isRecord(value)) {
    for (const key of ['id', 'email', 'title', 'name']) {
      if (typeof value[key] === 'string') return [value[key] as string];
    }
    return [];
  }
  return [textOf(value)];
};

const MESSAGE = (multiple: boolean) =>
  multiple ? 'expected a non-empty list of {id} of collaborators' : 'expected {id} of a collaborator';

/** A user cell: `{id, title, email}` of a collaborator, or a list of them with `isMultiple`. */
export const user: FieldKind = {
  type: 'user',
  defaultName: 'Collaborator',
  isComputed: false,
  allowedAsPrimary: true,
  normalizeOptions(options) {
    const o = readOptions(options, 'user');
    const out: Record<string, unknown> = {};
    const multiple = optionalBoolean(o, 'isMultiple', 'user');
    const shouldNotify = optionalBoolean(o, 'shouldNotify', 'user');
    if (multiple !== undefined) out.isMultiple = multiple;
    if (shouldNotify !== undefined) out.shouldNotify = shouldNotify;
    if (!isNothing(o.defaultValue)) {
      const given = Array.isArray(o.defaultValue) ? o.defaultValue : [o.defaultValue];
      if (given.length === 0 || given.some((v) => typeof v !== 'string' || v === ''))
        throw optionsError('user', 'defaultValue must be "me", a user id, or a list of them');
      out.defaultValue = multiple ? given : given[0];
    }
    return out;
  },
  cellValueType: () => 'string',
  isMultipleCellValue: (options) => isMultiple(options),
  validate(value, field, ctx) {
    if (isNothing(value)) return { value: undefined };
    const multiple = isMultiple(field.options);
    const items = Array.isArray(value) ? value : [value];
    if (items.length === 0 || (!multiple && items.length > 1)) throw cellError(field, MESSAGE(multiple));
    const users = items.map((item) => {
      const id = isRecord(item) ? item.id : item;
      if (typeof id !== 'string') throw cellError(field, MESSAGE(multiple));
      const found = ctx.collaborators.find((c) => c.id === id);
      if (!found) throw cellError(field, `${id} is not a collaborator of this space`);
      return found;
    });
    return store(users, field);
  },
  typecast(value, field, ctx) {
    const multiple = isMultiple(field.options);
    const texts = userTextsOf(value, multiple);
    const found = texts.map((t) => findCollaborator(t, ctx.collaborators)).filter((u) => u !== undefined);
    return store(found, field);
  },
  defaultValue(field, ctx: WriteContext) {
    const given = field.options.defaultValue;
    if (isNothing(given)) return undefined;
    const ids = Array.isArray(given) ? given : [given];
    const users = ids.flatMap((id) =>
      id === 'me' ? [ctx.user] : ctx.collaborators.filter((c) => c.id === id).slice(0, 1),
    );
    return store(users, field).value;
  },
  toJson: (value) => userCellOut(value),
  toText: (value) => textOf(value),
  query: { valueClass: 'user', searchedByDefault: true, searchCost: 1 },
};
