import type { SelectQueryBuilder } from 'kysely';
import { ApiError } from './errors.js';
import { isUuid } from './ids.js';

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

export function pageRequest(query: { limit: number; starting_after?: string }, order: 'desc' | 'asc' = 'desc'): PageRequest {
  const cursor = query.starting_after;
  if (cursor !== undefined && !isUuid(cursor)) {
    throw new ApiError('invalid_cursor', { param: 'starting_after', message: 'starting_after must be the next_cursor of a previous page.' });
  }
  return { limit: query.limit, startingAfter: cursor ? cursor.toLowerCase() : null, order };
}

export async function keysetPage<O extends { id: string }>(
  query: SelectQueryBuilder<any, any, O>,
  page: PageRequest,
  idColumn = 'id',
): Promise<Page<O>> {
  let q = query;
  if (page.startingAfter) q = q.where(idColumn, page.order === 'desc' ? '<' : '>', page.startingAfter);
  const rows = await q.orderBy(idColumn, page.order).limit(page.limit + 1).execute();
  const has_more = rows.length > page.limit;
  const data = has_more ? rows.slice(0, page.limit) : rows;
  return { data, has_more, next_cursor: has_more ? data[data.length - 1].id : null };
}

/** The list envelope every list operation answers with. */
export function listEnvelope<R, T>(page: Page<R>, map: (row: R) => T) {
  return { object: 'list' as const, data: page.data.map(map), has_more: page.has_more, next_cursor: page.next_cursor };
}
