export { AplClient, DEFAULT_URL, type AplClientOptions } from './client.js';
export { AplApiError, queryErrorLocation, positionInMessage, type QueryErrorLocation } from './errors.js';
export { pagesByCursor, pagesByTime, pagedApl, matchedRows, fetchPage, firstAnchor, DEFAULT_PAGE_SIZE, type PageAnchor, type PageStep, type PagingKind } from './paging.js';
export { tableRows, rowCount } from './rows.js';
export type * from './types.js';
