import { PostgresAdapter, sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * The question bank's search text folds more, the same on both engines and in a search (search.ts `foldSearchText`):
 * compatibility forms as their plain letters (NFKC: the ligatures ﬁ and ﬂ are fi and fl, fullwidth letters plain),
 * ß and ẞ as ss, and Greek letters' accents as Latin letters' were (ά → α). "ﬁle" found no "file", `strasse` no
 * "Straße", and `ελλαδα` found "Ελλάδα" on neither engine.
 * PostgreSQL: the search column is made again (as in 0020, a generated column's expression cannot be altered before
 * PostgreSQL 17), its text folded in SQL before the punctuation is split and the words stemmed.
 * SQLite: FTS5's tokenizer folds only Latin accents; its entries are written folded (store.ts) and written again here.
 */
const fold = (text: string) => text.normalize('NFKD').replace(/[ßẞ]/g, 'ss').replace(/([A-Za-z\u0370-\u03ff])[\u0300-\u036f]+/g, '$1').normalize('NFC');

export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table question_bank_questions drop column search`.execute(db); // drops its index too
    const text = (column: RawBuilder<unknown>) => {
      const compatible = sql`replace(replace(normalize(${column}, NFKD), 'ß', 'ss'), 'ẞ', 'ss')`;
      const folded = sql`normalize(regexp_replace(${compatible}, '([A-Za-z\\u0370-\\u03ff])[\\u0300-\\u036f]+', '\\1', 'g'), NFC)`;
      return sql`to_tsvector('english', regexp_replace(${folded}, '[\\u0021-\\u002f\\u003a-\\u0040\\u005b-\\u0060\\u007b-\\u007e]+', ' ', 'g'))`;
    };
    await sql`alter table question_bank_questions add column search tsvector generated always as
      (setweight(${text(sql`title`)}, 'A') || setweight(${text(sql`coalesce(prompt, '')`)}, 'D')) stored`.execute(db);
    await sql`create index question_bank_questions_search_idx on question_bank_questions using gin (search)`.execute(db);
    return;
  }
  const rows = await db.selectFrom('question_bank_questions').select(['id', 'title', 'prompt']).execute() as Array<{ id: string; title: string; prompt: string | null }>;
  await db.deleteFrom('question_bank_fts').execute();
  for (let i = 0; i < rows.length; i += 100) {
    await db.insertInto('question_bank_fts')
      .values(rows.slice(i, i + 100).map((r) => ({ question_id: r.id, title: fold(r.title), body: fold(r.prompt ?? '') }))).execute();
  }
}
