import { PostgresAdapter, sql, type Kysely } from 'kysely';
import { columnTypes } from './types.js';

/**
 * The question bank: questions (Prep's shared bank, an organisation's own, titles imported from company-wise
 * files), their topics, the category and topic taxonomy, and imported statistics per company and time bucket.
 * Full-text search: an FTS5 table on SQLite (kept in step by the bank's writes), a generated tsvector column with a
 * GIN index on PostgreSQL. Content is catalogue data, loaded at start and by `prep seed` (never by a migration).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const real = postgres ? sql`double precision` : sql`real`;

  await db.schema.createTable('question_bank_taxonomy')
    .addColumn('kind', 'text', (c) => c.notNull()) // category | topic
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addPrimaryKeyConstraint('question_bank_taxonomy_pk', ['kind', 'slug'])
    .execute();

  await db.schema.createTable('question_bank_questions')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('organization_id', t.id, (c) => c.references('organizations.id').onDelete('cascade')) // null: every organisation's
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('title_key', 'text', (c) => c.notNull()) // the title folded for matching imported rows
    .addColumn('prompt', 'text') // null: imported title only
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('difficulty', 'text', (c) => c.notNull())
    .addColumn('difficulty_rank', 'integer', (c) => c.notNull()) // 1 easy, 2 medium, 3 hard
    .addColumn('guidance', 'text') // JSON {key_points, follow_ups}; null: imported title only
    .addColumn('problem_id', t.id) // the coding problem this question is
    .addColumn('source', 'text', (c) => c.notNull()) // prep | organization | imported
    .addColumn('link', 'text') // imported: the row's link, never fetched
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('updated_at', t.time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('question_bank_questions_browse_idx').on('question_bank_questions').columns(['category', 'difficulty_rank', 'id']).execute();
  await db.schema.createIndex('question_bank_questions_owner_idx').on('question_bank_questions').columns(['organization_id', 'slug']).execute();
  await db.schema.createIndex('question_bank_questions_title_idx').on('question_bank_questions').columns(['title_key']).execute();
  await db.schema.createIndex('question_bank_questions_problem_idx').on('question_bank_questions').columns(['problem_id']).execute();

  await db.schema.createTable('question_bank_question_topics')
    .addColumn('question_id', t.id, (c) => c.notNull().references('question_bank_questions.id').onDelete('cascade'))
    .addColumn('topic', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('question_bank_question_topics_pk', ['question_id', 'topic'])
    .execute();
  await db.schema.createIndex('question_bank_question_topics_topic_idx').on('question_bank_question_topics').columns(['topic', 'question_id']).execute();

  await db.schema.createTable('question_bank_imported_stats')
    // '' for an import every organisation sees, else the organisation's id
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('question_id', t.id, (c) => c.notNull().references('question_bank_questions.id').onDelete('cascade'))
    .addColumn('company_slug', 'text', (c) => c.notNull())
    .addColumn('company_name', 'text', (c) => c.notNull())
    .addColumn('bucket', 'text', (c) => c.notNull()) // 30d | 90d | 180d | all
    .addColumn('frequency', real, (c) => c.notNull())
    .addColumn('acceptance', real)
    .addColumn('source_file', 'text', (c) => c.notNull())
    .addColumn('imported_at', t.time, (c) => c.notNull())
    .addPrimaryKeyConstraint('question_bank_imported_stats_pk', ['owner', 'question_id', 'company_slug', 'bucket'])
    .execute();
  await db.schema.createIndex('question_bank_imported_stats_company_idx').on('question_bank_imported_stats').columns(['company_slug', 'bucket', 'question_id']).execute();
  await db.schema.createIndex('question_bank_imported_stats_question_idx').on('question_bank_imported_stats').columns(['question_id']).execute();

  if (postgres) {
    await sql`alter table question_bank_questions add column search tsvector
      generated always as (to_tsvector('english', title || ' ' || coalesce(prompt, ''))) stored`.execute(db);
    await sql`create index question_bank_questions_search_idx on question_bank_questions using gin (search)`.execute(db);
  } else {
    await sql`create virtual table question_bank_fts using fts5(question_id unindexed, title, body, tokenize = 'porter unicode61 remove_diacritics 2')`.execute(db);
  }
  // Activity counted per problem over a window reads sessions by their start.
  await db.schema.createIndex('coding_sessions_started_idx').on('coding_sessions').columns(['organization_id', 'livemode', 'started_at']).execute();
}
