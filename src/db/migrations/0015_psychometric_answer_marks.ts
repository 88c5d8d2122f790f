import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * A psychometric session's answers become one character per item of its test, in the test's item order ('0'
 * unanswered, '1'–'5'; src/modules/psychometric/answers.ts), instead of a JSON object keyed by item id: a page of
 * answers is then merged into a string of fixed length, which SQLite rewrites in place. PostgreSQL gets `merge_marks`,
 * which the app registers itself on its SQLite connections (src/db/functions.ts). Saved answers are converted.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`create or replace function merge_marks(saved text, page text) returns text language sql immutable strict parallel safe as $$
      select case when length(saved) = length(page)
        then string_agg(case when substr(page, i, 1) = '.' then substr(saved, i, 1) else substr(page, i, 1) end, '' order by i) end
      from generate_series(1, length(saved)) as i
    $$`.execute(db);
  }
  const itemsOf = new Map<string, string[]>();
  // A batch at a time, by id: a large table is never read into memory whole.
  for (let after: string | null = null; ;) {
    let batch = db.selectFrom('psychometric_sessions').select(['id', 'test_id', 'answers']).where('answers', 'like', '{%').orderBy('id').limit(500);
    if (after !== null) batch = batch.where('id', '>', after);
    const sheets = await batch.execute();
    if (sheets.length === 0) return;
    for (const sheet of sheets) {
      let items = itemsOf.get(sheet.test_id);
      if (!items) {
        const test = await db.selectFrom('psychometric_tests').select('definition').where('id', '=', sheet.test_id).executeTakeFirstOrThrow();
        itemsOf.set(sheet.test_id, (items = (JSON.parse(test.definition).items as Array<{ id: string }>).map((i) => i.id)));
      }
      // Own keys only: an organisation's item id may be `constructor` or `toString`, unanswered.
      const answers = JSON.parse(sheet.answers) as Record<string, number>;
      await db.updateTable('psychometric_sessions').set({ answers: items.map((id) => String(Object.hasOwn(answers, id) ? answers[id] : 0)).join('') }).where('id', '=', sheet.id).execute();
    }
    after = sheets.at(-1)!.id;
  }
}
