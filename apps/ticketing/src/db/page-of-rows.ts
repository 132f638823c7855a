import type { Page } from '@townhall/contracts';

/**
 * A page of ticketing's lists, from rows read with one more than the page holds (`LIMIT limit + 1`,
 * in the list's order): the first `limit` rows as views, and the cursor after the last of them
 * when the extra row says there is more.
 */
export function pageOfRows<Row, View>(
  rows: readonly Row[],
  limit: number,
  view: (row: Row) => View,
  cursorAfter: (row: Row) => string,
): Page<View> {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { items: page.map(view), nextCursor: rows.length > limit && last ? cursorAfter(last) : null };
}
