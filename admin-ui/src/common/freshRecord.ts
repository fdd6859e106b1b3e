/**
 * `queryOptions` for every Show and Edit page: list answers carry partial records (a campaign list item has no
 * `budget`), and react-admin seeds its getOne cache with them, so a page opened from a list would first render
 * the partial record and crash on a missing field. The `meta` makes the page's query key its own: it always waits
 * for the record's own detail.
 */
export const FRESH_RECORD = { meta: { detail: true } } as const;
