import type { SelectQueryBuilder } from 'kysely';
import type { Db } from '../db/database.js';
import { prepared } from '../db/prepared.js';
import { ApiError } from './errors.js';
import { isUuid } from './ids.js';
import { PAGE_LIMIT_DEFAULT } from './schemas.js';

/**
 * Keyset pagination over time-ordered (UUIDv7) ids: newest first, the cursor is the last id of a page.
 * A row inserted while a client pages sorts above every cursor it holds, so pages never shift.
 */
export interface PageRequest {
  limit: number;
  startingAfter: string | null;
  order: 'desc' | 'asc';
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

// A page without a cursor starts past the largest (or before the smallest) possible id: one query shape for both.
const BEYOND = { desc: 'ffffffff-ffff-ffff-ffff-ffffffffffff', asc: '00000000-0000-0000-0000-000000000000' } as const;

export function pageRequest(query: { limit?: number; starting_after?: string }, order: 'desc' | 'asc' = 'desc'): PageRequest {
  const cursor = query.starting_after;
  if (cursor !== undefined && !isUuid(cursor)) {
    throw new ApiError('invalid_cursor', { param: 'starting_after', message: 'starting_after must be the next_cursor of a previous page.' });
  }
  return { limit: query.limit ?? PAGE_LIMIT_DEFAULT, startingAfter: cursor ? cursor.toLowerCase() : null, order };
}

/**
 * The one list helper. `build` gives the filtered query (scoped to a tenant by its arguments); the pager
 * adds the cursor, order and limit, and compiles each shape once (see `prepared`).
 * Filters passed as `undefined` are left out of the query.
 */
export function keysetPager<F extends unknown[], O extends { id: string }>(
  db: Db,
  build: (...filters: F) => SelectQueryBuilder<any, any, O>,
  idColumn = 'id',
) {
  const byOrder = {
    desc: prepared(db, (cursor: string, limit: number, ...filters: F) =>
      build(...filters).where(idColumn, '<', cursor).orderBy(idColumn, 'desc').limit(limit)),
    asc: prepared(db, (cursor: string, limit: number, ...filters: F) =>
      build(...filters).where(idColumn, '>', cursor).orderBy(idColumn, 'asc').limit(limit)),
  };
  return async (page: PageRequest, ...filters: F): Promise<Page<O>> => {
    const rows = await byOrder[page.order](page.startingAfter ?? BEYOND[page.order], page.limit + 1, ...filters);
    const has_more = rows.length > page.limit;
    const data = has_more ? rows.slice(0, page.limit) : rows;
    return { data, has_more, next_cursor: has_more ? data[data.length - 1].id : null };
  };
}

/**
 * A page of a short list held in memory (not a table: the languages the sandbox found), in its own order; the
 * cursor is the last item's id. An id the list no longer holds is `invalid_cursor`.
 */
export function memoryPage<T extends { id: string }>(items: readonly T[], query: { limit?: number; starting_after?: string }): Page<T> {
  let start = 0;
  if (query.starting_after !== undefined) {
    const at = items.findIndex((item) => item.id === query.starting_after);
    if (at < 0) throw new ApiError('invalid_cursor', { param: 'starting_after', message: 'starting_after must be the next_cursor of a previous page.' });
    start = at + 1;
  }
  const limit = query.limit ?? PAGE_LIMIT_DEFAULT;
  const data = items.slice(start, start + limit);
  const has_more = start + limit < items.length;
  return { data, has_more, next_cursor: has_more ? data[data.length - 1]!.id : null };
}

/** The list envelope every list operation answers with. */
export function listEnvelope<R, T>(page: Page<R>, map: (row: R) => T) {
  return { object: 'list' as const, data: page.data.map(map), has_more: page.has_more, next_cursor: page.next_cursor };
}
