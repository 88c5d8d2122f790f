import { PostgresAdapter, sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * The question bank's PostgreSQL search column reads and weighs its text as SQLite's FTS5 index does (`unicode61
 * remove_diacritics 2`) and as the search text is read (search.ts):
 * - Latin letters' accents are folded (é → e, ü → u): the text is decomposed (NFD), the combining accents that follow
 *   a Latin letter dropped, the rest composed again (NFC), so other scripts keep their marks; queries fold alike
 *   (`foldLatin`). `cafe` found "Café" on SQLite only.
 * - Words split at ASCII punctuation: PostgreSQL's parser keeps `Node.js`, `HTTP/2`, `3.5` or an address as one token
 *   and a hyphenated word as a whole before its parts, so `node` found no "Node.js" and the phrase "use token-bucket"
 *   never matched there.
 * - The title weighs ten times the prompt (weights A and D: ts_rank's default weights are 1.0 and 0.1), as SQLite's
 *   bm25 weighs its columns: a prompt that repeated a word outranked the question named for it.
 * `normalize` needs PostgreSQL 13 or later and a UTF8 database (as Prep's text does). A generated column's expression
 * cannot be altered before PostgreSQL 17: the column and its index are made again.
 * SQLite: nothing to do.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`alter table question_bank_questions drop column search`.execute(db); // drops its index too
  const text = (column: RawBuilder<unknown>) => {
    const folded = sql`normalize(regexp_replace(normalize(${column}, NFD), '([A-Za-z])[\\u0300-\\u036f]+', '\\1', 'g'), NFC)`;
    return sql`to_tsvector('english', regexp_replace(${folded}, '[\\u0021-\\u002f\\u003a-\\u0040\\u005b-\\u0060\\u007b-\\u007e]+', ' ', 'g'))`;
  };
  await sql`alter table question_bank_questions add column search tsvector generated always as
    (setweight(${text(sql`title`)}, 'A') || setweight(${text(sql`coalesce(prompt, '')`)}, 'D')) stored`.execute(db);
  await sql`create index question_bank_questions_search_idx on question_bank_questions using gin (search)`.execute(db);
}
