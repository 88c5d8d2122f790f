import { PostgresAdapter, sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * A quoted phrase holding an English stop word ("design the cache") matches the same questions on both engines: that
 * very word at its place. SQLite's FTS5 index keeps every word, so it wanted "the" there; PostgreSQL's `english`
 * configuration drops stop words from the text and the query alike, keeping only their place, so there any word filled
 * it ("design a cache", "design big cache"). The search itself drops stop words everywhere else for both engines
 * (search.ts `parseSearch`), so PostgreSQL need not.
 * PostgreSQL: a configuration `prep_english`, the `english` one whose Snowball stemmer has no stop-word list (every
 * other word stems as before), made in the tables' schema; the search column is made again with it (as in 0030, the
 * text folded alike), which computes it for every question already stored. Searches read with it (repo.ts).
 * SQLite: nothing to do.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`create text search dictionary prep_english_stem (template = pg_catalog.snowball, language = english)`.execute(db);
  await sql`create text search configuration prep_english (copy = pg_catalog.english)`.execute(db);
  await sql`alter text search configuration prep_english alter mapping replace pg_catalog.english_stem with prep_english_stem`.execute(db);
  await sql`alter table question_bank_questions drop column search`.execute(db); // drops its index too
  const text = (column: RawBuilder<unknown>) => {
    const compatible = sql`replace(replace(normalize(${column}, NFKD), 'ß', 'ss'), 'ẞ', 'ss')`;
    const folded = sql`replace(normalize(regexp_replace(${compatible}, '([A-Za-z\\u0370-\\u03ff])[\\u0300-\\u036f]+', '\\1', 'g'), NFC), 'ς', 'σ')`;
    return sql`to_tsvector('prep_english', regexp_replace(${folded}, '[\\u0021-\\u002f\\u003a-\\u0040\\u005b-\\u0060\\u007b-\\u007e]+', ' ', 'g'))`;
  };
  await sql`alter table question_bank_questions add column search tsvector generated always as
    (setweight(${text(sql`title`)}, 'A') || setweight(${text(sql`coalesce(prompt, '')`)}, 'D')) stored`.execute(db);
  await sql`create index question_bank_questions_search_idx on question_bank_questions using gin (search)`.execute(db);
}
