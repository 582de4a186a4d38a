/**
 * Record history, Teable's two routes (data-flow.md 2): `GET /table/{t}/record/{r}/history` and
 * `GET /table/{t}/record/history`, newest first, 20 a page, an opaque cursor, `startDate` and
 * `endDate` (inclusive), and `userMap` of the editors. Read from the history items the stream
 * processor writes; a deleted record's history stays readable until the retention ends.
 */
import { opaqueCursor } from '#shared/core/cursors.ts';
import { ValidationError } from '#shared/core/errors.ts';
import { type HistoryItem, historyPage, historySortKey } from '#shared/entities/record-history.ts';
import { usersByIds } from '#shared/entities/users.ts';

/** Items a page answers. */
export const HISTORY_PAGE = 20;

export interface HistoryQuery {
  startDate?: string;
  endDate?: string;
  cursor?: string | null;
}

const HISTORY_CURSOR = opaqueCursor('h1.', 'this history', (key) =>
  /^\d{4}-\d{2}-\d{2}T[^#]+#evt\w+#fld\w+$/.test(key),
);
const cursorOf = HISTORY_CURSOR.encode;
const sortKeyOf = HISTORY_CURSOR.decode;

const instantOf = (text: string | undefined, name: string): number | undefined => {
  if (text === undefined || text === '') return undefined;
  const t = Date.parse(text);
  if (Number.isNaN(t))
    throw new ValidationError(`Invalid query.${name}: not a date`, [
      { path: `query.${name}`, message: 'not a date' },
    ]);
  return t;
};

/** One page of a table's history, or of one record's: `{historyList, userMap, nextCursor}`. */
export const recordHistoryPage = async (
  tableId: string,
  recordId: string | undefined,
  query: HistoryQuery,
  now = new Date(),
) => {
  const from = instantOf(query.startDate, 'startDate');
  const to = instantOf(query.endDate, 'endDate');
  let before = query.cursor ? sortKeyOf(query.cursor) : undefined;
  const list: HistoryItem[] = [];
  const nowSeconds = Math.floor(now.getTime() / 1000);
  let more = true;
  let rest = false;
  while (list.length < HISTORY_PAGE && more) {
    const page = await historyPage(tableId, recordId, HISTORY_PAGE * 2, before);
    for (const [i, { expiresAt, ...item }] of page.items.entries()) {
      before = historySortKey(item);
      const at = Date.parse(item.createdTime);
      if (expiresAt && expiresAt <= nowSeconds) continue;
      if (to !== undefined && at > to) continue;
      if (from !== undefined && at < from) {
        more = false;
        break;
      }
      list.push(item);
      if (list.length === HISTORY_PAGE) {
        // a full page: more to read when this read left items, or there are more pages
        rest = i < page.items.length - 1 || page.last !== undefined;
        break;
      }
    }
    if (!page.last) more = false;
  }
  const users = await usersByIds(list.map((h) => h.createdBy));
  const userMap: Record<string, { id: string; name: string; email: string; avatar: null }> = {};
  for (const [id, user] of users) userMap[id] = { id, name: user.name, email: user.email, avatar: null };
  const last = list.at(-1);
  return {
    historyList: list,
    userMap,
    nextCursor: rest && last ? cursorOf(historySortKey(last)) : null,
  };
};
