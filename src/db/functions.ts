/**
 * SQL functions the app registers on its SQLite connections; PostgreSQL gets the same ones from migrations. Each is
 * deterministic and small.
 */

/**
 * `merge_marks(saved, page)`: `saved` with each character of `page` other than '.' put in its place; both strings
 * have one length (positional marks, such as a questionnaire's answers, merged with a page of changes).
 */
export function mergeMarks(saved: unknown, page: unknown): string {
  if (typeof saved !== 'string' || typeof page !== 'string' || saved.length !== page.length) {
    throw new RangeError('merge_marks takes two strings of one length');
  }
  let out = '';
  let from = 0;
  for (let i = 0; i < page.length; i++) {
    if (page.charCodeAt(i) === 46) continue; // '.': keep
    out += saved.slice(from, i) + page[i];
    from = i + 1;
  }
  return out + saved.slice(from);
}
