/**
 * The listing route's parameters (contract `listing.md` section 1), read from the parsed query
 * string (`shared/http/query-string.ts`) merged over saved parameters (`queryId`). Pure: field
 * references are resolved later, against the table's schema (`resolve.ts`).
 */
import * as z from 'zod/mini';
import { ValidationError } from '#shared/core/errors.ts';
import { idOf, parseInput, queryList, querySingle } from '#shared/core/validation.ts';
import { cellFormatSchema, fieldKeyTypeSchema } from '#shared/schema/schema-requests.ts';

/** Largest page (contract: `take` 1..1000). */
export const MAX_TAKE = 1000;
export const DEFAULT_TAKE = 100;

/** The raw parameters: one string or a list per key (a saved query may also hold JSON values). */
export type RawParams = Record<string, unknown>;

const integerText = (name: string, min: number, max: number) =>
  z.pipe(
    z.transform((v: unknown) => (typeof v === 'number' ? String(v) : v)),
    z.string().check(
      z.refine((v) => /^\d+$/.test(v.trim()) && Number(v) >= min && Number(v) <= max, {
        error: `${name} must be an integer from ${min} to ${max}`,
      }),
    ),
  );

const boolText = z.pipe(
  z.transform((v: unknown) => (typeof v === 'boolean' ? String(v) : v)),
  z.string(),
);

/** Keys read as plain text or lists; the JSON parameters are read by `jsonParam`. */
export const listParamsSchema = z.object({
  viewId: z.optional(querySingle(idOf('view'))),
  ignoreViewQuery: z.optional(querySingle(boolText)),
  projection: z.optional(queryList(z.string().check(z.maxLength(1000)))),
  cellFormat: z.optional(querySingle(cellFormatSchema)),
  fieldKeyType: z.optional(querySingle(fieldKeyTypeSchema)),
  filterByTql: z.optional(querySingle(z.string().check(z.maxLength(10_000)))),
  search: z.optional(queryList(z.string().check(z.maxLength(1000))).check(z.maxLength(3))),
  selectedRecordIds: z.optional(queryList(idOf('record')).check(z.maxLength(10_000))),
  filterLinkCellCandidate: z.optional(queryList(z.string()).check(z.minLength(1), z.maxLength(2))),
  filterLinkCellSelected: z.optional(queryList(z.string()).check(z.minLength(1), z.maxLength(2))),
  queryId: z.optional(querySingle(idOf('query'))),
  take: z.optional(querySingle(integerText('take', 1, MAX_TAKE))),
  skip: z.optional(querySingle(integerText('skip', 0, Number.MAX_SAFE_INTEGER))),
});

/**
 * The listing query as routes take it: any keys, each text or a list of texts; `readListParams`
 * (or `listParamsOf`, after merging a saved query) checks it. One object, so the API description
 * knows these routes by it (`infra/openapi.ts`).
 */
export const listQuery = z.record(z.string(), z.union([z.string(), z.array(z.string())]));

/** A picker parameter: the link field and optionally the record whose cell is meant. */
export interface LinkCellRef {
  fieldId: string;
  recordId?: string;
}

/** The listing parameters with types, field references still as the caller wrote them. */
export interface ListParams {
  viewId?: string;
  ignoreViewQuery: boolean;
  projection?: string[];
  cellFormat: 'json' | 'text';
  fieldKeyType: 'name' | 'id' | 'dbFieldName';
  /** `filter` as parsed JSON (or `filterByTql` text, which replaces it). */
  filter?: unknown;
  filterByTql?: string;
  orderBy?: unknown;
  groupBy?: unknown;
  collapsedGroupIds: string[];
  search?: { value: string; fields?: string; hide: boolean };
  selectedRecordIds?: string[];
  filterLinkCellCandidate?: LinkCellRef;
  filterLinkCellSelected?: LinkCellRef;
  take: number;
  skip: number;
}

const bareText = (value: unknown, name: string): string | undefined => {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) {
    if (value.length !== 1) throw new ValidationError(`${name}: expected JSON text, got a list`);
    return bareText(value[0], name);
  }
  if (typeof value !== 'string') return JSON.stringify(value);
  return value;
};

/**
 * A JSON text parameter (`filter`, `orderBy`, `groupBy`): parsed, or a 400 naming it. A saved
 * query may hold the value already parsed. Empty text means absent. JSON text encoded twice (a
 * string holding a JSON object or list: what Teable's client sends when handed a filter already
 * as text, as Teable's own tests do, and Teable's server takes) is read as the value it holds.
 */
export const jsonParam = (value: unknown, name: string): unknown => {
  if (value !== undefined && typeof value === 'object' && !Array.isArray(value)) return value;
  if (Array.isArray(value) && value.some((v) => typeof v !== 'string')) return value;
  const text = bareText(value, name);
  if (text === undefined || text.trim() === '') return undefined;
  if (text.length > 100_000) throw new ValidationError(`${name}: longer than 100,000 characters`);
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'string' && /^\s*[[{]/.test(parsed) ? JSON.parse(parsed) : parsed;
  } catch {
    throw new ValidationError(`${name}: not valid JSON`);
  }
};

/** An empty filter (`{}`, `null`) is no filter, as Teable's client sends it for none. Pure. */
const noEmptyFilter = (filter: unknown): unknown =>
  filter === null ||
  (typeof filter === 'object' && !Array.isArray(filter) && Object.keys(filter as object).length === 0)
    ? undefined
    : filter;

/** `collapsedGroupIds`: JSON text of an array, or a query-string list of ids. */
const collapsedIds = (value: unknown): string[] => {
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  const out: string[] = [];
  for (const v of list) {
    if (typeof v === 'number') out.push(String(v));
    else if (typeof v !== 'string')
      throw new ValidationError('collapsedGroupIds: must be a list of header ids');
    else if (v.trim().startsWith('[')) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(v);
      } catch {
        throw new ValidationError('collapsedGroupIds: not valid JSON');
      }
      if (!Array.isArray(parsed) || parsed.some((x) => typeof x !== 'string' && typeof x !== 'number'))
        throw new ValidationError('collapsedGroupIds: must be a list of header ids');
      out.push(...parsed.map(String));
    } else if (v !== '') out.push(v);
  }
  if (out.length > 10_000) throw new ValidationError('collapsedGroupIds: at most 10,000 ids');
  return out;
};

const linkCellRef = (value: string[] | undefined, name: string): LinkCellRef | undefined => {
  if (!value) return undefined;
  const [fieldId, recordId] = value;
  if (!fieldId || !/^fld[0-9A-Za-z]{16}$/.test(fieldId))
    throw new ValidationError(`${name}: the first item must be a field id`);
  if (recordId !== undefined && !/^rec[0-9A-Za-z]{16}$/.test(recordId))
    throw new ValidationError(`${name}: the second item must be a record id`);
  return { fieldId, ...(recordId !== undefined ? { recordId } : {}) };
};

/** Saved parameters are the base; the request's override them key by key (`queryId`). */
export const mergeParams = (saved: RawParams | undefined, request: RawParams): RawParams => {
  const { queryId: _, ...rest } = request;
  return saved ? { ...saved, ...rest } : rest;
};

/** Reads and checks the listing parameters; every problem is a 400 naming the parameter. Pure. */
const SEARCH_FORMS =
  'search: send search[]=value&search[]=field&search[]=true, or one JSON array ["value", "field", true]';

/**
 * `search` as given: `search[]=value&search[]=field&search[]=hide`, or one JSON array text
 * (`search=["value","field",true]`, as some clients send it). One text in brackets is read as
 * that JSON array: one that does not parse, or is not 1–3 texts or booleans, is a 400 showing both
 * forms, never searched for as it is (a typo in the array would otherwise search for the whole
 * text and find nothing). So is one that starts with `["` (a JSON array cut short, like
 * `["abc",`). Text in brackets is searched for by giving a second term
 * (`search[]=[draft]&search[]=`). Other text that only starts with "[" is a value like any other. Pure.
 */
export const searchTerms = (given: readonly string[] | undefined): string[] => {
  if (!given?.length) return [];
  const only = given.length === 1 ? (given[0] as string).trim() : '';
  const jsonArray = (only.startsWith('[') && only.endsWith(']')) || /^\[\s*"/.test(only);
  if (!jsonArray) return [...given];
  let parsed: unknown;
  try {
    parsed = JSON.parse(only);
  } catch {
    throw new ValidationError(
      `${SEARCH_FORMS}; ${JSON.stringify(only.slice(0, 100))} is not a JSON array (to search for text in brackets: search[]=<text>&search[]=)`,
    );
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length < 1 ||
    parsed.length > 3 ||
    !parsed.every((t) => typeof t === 'string' || typeof t === 'boolean')
  )
    throw new ValidationError(SEARCH_FORMS);
  return parsed.map(String);
};

export const readListParams = (raw: RawParams): ListParams => {
  const p = parseInput(listParamsSchema, raw, 'query');
  const terms = searchTerms(p.search);
  const search = terms.length
    ? {
        value: terms[0] as string,
        ...(terms[1] ? { fields: terms[1] } : {}),
        hide: terms[2] !== undefined && terms[2] !== 'false' && terms[2] !== '',
      }
    : undefined;
  const candidate = linkCellRef(p.filterLinkCellCandidate, 'filterLinkCellCandidate');
  const selected = linkCellRef(p.filterLinkCellSelected, 'filterLinkCellSelected');
  if (candidate && selected)
    throw new ValidationError('filterLinkCellCandidate and filterLinkCellSelected cannot be used together');
  const filterByTql = p.filterByTql?.trim() ? p.filterByTql : undefined;
  return {
    viewId: p.viewId,
    ignoreViewQuery: p.ignoreViewQuery !== undefined && p.ignoreViewQuery !== 'false',
    projection: p.projection,
    cellFormat: p.cellFormat ?? 'json',
    fieldKeyType: p.fieldKeyType ?? 'name',
    filter: filterByTql === undefined ? noEmptyFilter(jsonParam(raw.filter, 'filter')) : undefined,
    filterByTql,
    orderBy: jsonParam(raw.orderBy, 'orderBy'),
    groupBy: jsonParam(raw.groupBy, 'groupBy'),
    collapsedGroupIds: collapsedIds(raw.collapsedGroupIds),
    search: search && search.value !== '' ? search : undefined,
    selectedRecordIds: p.selectedRecordIds,
    filterLinkCellCandidate: candidate,
    filterLinkCellSelected: selected,
    take: p.take === undefined ? DEFAULT_TAKE : Number(p.take),
    skip: p.skip === undefined ? 0 : Number(p.skip),
  };
};
