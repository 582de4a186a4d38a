/**
 * What every listing strategy shares: the context and answer of a listing, the page's records read
 * and rendered (with the search hits among them), and the engine's context.
 */
import { searchHits } from '#shared/query/engine.ts';
import type { QueryResult } from '#shared/query/query-types.ts';
import { linkTitlesFor } from '#shared/records/link-cells.ts';
import { renderRecords } from '#shared/records/read.ts';
import { readRecords, toRow } from '#shared/records/rows.ts';
import type { FieldKeyType } from '#shared/schema/schema.ts';
import { primaryField, type TableSchema } from '#shared/schema/schema.ts';
import type { ListParams } from './params.ts';
import type { ListPlan } from './resolve.ts';

export interface ListContext {
  schema: TableSchema;
  userId: string;
  canUpdate: boolean;
  canDelete: boolean;
  now?: Date;
  /** Each record answered with its `version` (the realtime socket's queries). */
  withVersions?: boolean;
}

export interface ListAnswer {
  records: ReturnType<typeof renderRecords> extends Promise<infer R> ? R : never;
  extra: Pick<QueryResult, 'groupPoints' | 'allGroupHeaderRefs' | 'searchHitIndex'>;
}

/**
 * Reads the page's records in the given order and renders them. On the general path this reads
 * the page a second time (the query read only the attributes it filters, sorts and groups on), on
 * purpose: reading every record whole so the page could come from that one read costs the same
 * read units (a Query bills the items' size, whatever the projection) but took 2.2–2.3 times as
 * long for a 10,000 × 50 table (880–920 ms against 385–426 ms; 21.9 MB of JSON against 1.7 MB),
 * for one round trip saved. Measured by `npm run bench` (listing: "the general path's read"),
 * 2026-11-26.
 */
export const renderPage = async (
  ctx: ListContext,
  params: ListParams,
  plan: Pick<ListPlan, 'projection'>,
  ids: readonly string[],
) => renderRecords(ctx.schema, await readPage(ctx, plan, ids), renderOptions(ctx, params, plan));

/** The page's records: whole, or the primary field, the projection and `alsoCells`. */
const readPage = (
  ctx: ListContext,
  plan: Pick<ListPlan, 'projection'>,
  ids: readonly string[],
  alsoCells: Iterable<string> = [],
) =>
  readRecords(
    ctx.schema.table.id,
    ids,
    plan.projection
      ? [...new Set([primaryField(ctx.schema).id, ...plan.projection, ...alsoCells])]
      : undefined,
  );

const renderOptions = (ctx: ListContext, params: ListParams, plan: Pick<ListPlan, 'projection'>) => ({
  keyType: params.fieldKeyType as FieldKeyType,
  cellFormat: params.cellFormat,
  projection: plan.projection,
  canUpdate: ctx.canUpdate,
  canDelete: ctx.canDelete,
  ...(ctx.withVersions ? { withVersion: true } : {}),
});

/** What the engine needs besides the rows: the fields, the caller, now and link titles. */
export const queryContext = (
  ctx: ListContext,
  titles: Awaited<ReturnType<typeof linkTitlesFor>> | undefined,
) => ({
  fields: new Map(ctx.schema.fields.map((f) => [f.id, f])),
  userId: ctx.userId,
  now: ctx.now ?? new Date(),
  linkTitle: (fieldId: string, recordId: string) => titles?.linkTitle(fieldId, recordId),
});

/**
 * The page's records rendered, and the search hits among them (a kept order's page: the hits
 * are found on the page's records, read with the searched cells).
 */
const renderPageWithHits = async (
  ctx: ListContext,
  params: ListParams,
  plan: ListPlan,
  ids: readonly string[],
) => {
  const { schema } = ctx;
  const search = plan.query.search;
  if (!search) return { records: await renderPage(ctx, params, plan, ids), hits: null };
  const searched = new Set(search.fieldIds);
  const items = await readPage(ctx, plan, ids, searched);
  const fields = schema.fields.filter((f) => searched.has(f.id));
  const linkFieldIds = new Set(fields.filter((f) => f.type === 'link').map((f) => f.id));
  const [records, titles] = await Promise.all([
    renderRecords(schema, items, renderOptions(ctx, params, plan)),
    linkFieldIds.size ? linkTitlesFor(schema, items, linkFieldIds) : undefined,
  ]);
  const hits = searchHits(
    items.map((item) => toRow(item, fields, plan.view.id)),
    search,
    queryContext(ctx, titles),
  );
  return { records, hits };
};

export const NO_EXTRA: ListAnswer['extra'] = { groupPoints: null, searchHitIndex: null };

/** A page's answer: its records, and the group points and search hits of the listing. */
export const answerOf = (
  records: ListAnswer['records'],
  page: Pick<QueryResult, 'groupPoints' | 'allGroupHeaderRefs'>,
  hits: QueryResult['searchHitIndex'],
): ListAnswer => ({
  records,
  extra: {
    groupPoints: page.groupPoints,
    ...(page.allGroupHeaderRefs ? { allGroupHeaderRefs: page.allGroupHeaderRefs } : {}),
    searchHitIndex: hits?.length ? hits : null,
  },
});

/** The answer for a page whose ids and group points are known: its records, rendered. */
export const pageAnswer = async (
  ctx: ListContext,
  params: ListParams,
  plan: ListPlan,
  page: Pick<QueryResult, 'ids' | 'groupPoints' | 'allGroupHeaderRefs'>,
): Promise<ListAnswer> => {
  const { records, hits } = await renderPageWithHits(ctx, params, plan, page.ids);
  return answerOf(records, page, hits);
};
