import { PostgresAdapter, sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * The question bank's search text folds the Greek final sigma ς as σ (search.ts `foldSearchText`), the σ that
 * PostgreSQL lowers Σ to: a word typed with ς ("σοφος") found no "ΣΟΦΟΣ" there, and `σοφοσ` no "σοφός".
 * PostgreSQL: the search column is made again as in 0029 (a generated column's expression cannot be altered before
 * PostgreSQL 17), its folded text with ς as σ; making it computes it for every question already stored.
 * SQLite: nothing to do. FTS5's unicode61 tokenizer already reads ς as σ, so the entries written before (with ς) are
 * found as those written now (with σ).
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`alter table question_bank_questions drop column search`.execute(db); // drops its index too
  const text = (column: RawBuilder<unknown>) => {
    const compatible = sql`replace(replace(normalize(${column}, NFKD), 'ß', 'ss'), 'ẞ', 'ss')`;
    const folded = sql`replace(normalize(regexp_replace(${compatible}, '([A-Za-z\\u0370-\\u03ff])[\\u0300-\\u036f]+', '\\1', 'g'), NFC), 'ς', 'σ')`;
    return sql`to_tsvector('english', regexp_replace(${folded}, '[\\u0021-\\u002f\\u003a-\\u0040\\u005b-\\u0060\\u007b-\\u007e]+', ' ', 'g'))`;
  };
  await sql`alter table question_bank_questions add column search tsvector generated always as
    (setweight(${text(sql`title`)}, 'A') || setweight(${text(sql`coalesce(prompt, '')`)}, 'D')) stored`.execute(db);
  await sql`create index question_bank_questions_search_idx on question_bank_questions using gin (search)`.execute(db);
}
