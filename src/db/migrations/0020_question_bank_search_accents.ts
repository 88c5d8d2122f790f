import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * The question bank's PostgreSQL search column folds Latin letters' accents (é → e, ü → u), as SQLite's FTS5 index does
 * (`remove_diacritics 2`): `cafe` found "Café" on SQLite only. The text is decomposed (NFD), the combining accents
 * that follow a Latin letter dropped, and the rest composed again (NFC), so other scripts keep their marks; the
 * queries fold their words alike (search.ts, `foldLatin`). A generated column's expression cannot be altered before
 * PostgreSQL 17: the column and its index are made again. SQLite: nothing to do.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`alter table question_bank_questions drop column search`.execute(db); // drops its index too
  await sql`alter table question_bank_questions add column search tsvector generated always as (to_tsvector('english',
    normalize(regexp_replace(normalize(title || ' ' || coalesce(prompt, ''), NFD), '([A-Za-z])[\\u0300-\\u036f]+', '\\1', 'g'), NFC))) stored`.execute(db);
  await sql`create index question_bank_questions_search_idx on question_bank_questions using gin (search)`.execute(db);
}
