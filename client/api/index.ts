export { AplClient, DEFAULT_URL, type AplClientOptions } from './client.js';
export { AplApiError } from './errors.js';
export { pagesByCursor, pagesByTime, pagedApl, DEFAULT_PAGE_SIZE } from './paging.js';
export { tableRows, rowCount } from './rows.js';
export type * from './types.js';
