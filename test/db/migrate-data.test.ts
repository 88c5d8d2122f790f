import { readdirSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { Migrator, type Migration, type MigrationResultSet } from 'kysely/migration';
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { newId } from '../../src/platform/ids.js';
import { throwawayDatabase } from '../helpers/harness.js';

/**
 * A migrator's outcome, read again after a PostgreSQL catalogue race (as migrateToLatest does: Kysely reads the whole
 * catalogue, which fails while other test files create or drop their schemas; nothing is applied then).
 */
async function settled(go: () => Promise<MigrationResultSet>): Promise<MigrationResultSet> {
  for (let attempt = 1; ; attempt++) {
    const outcome = await go().catch((error: unknown) => ({ error }));
    const code = (outcome.error as { code?: string } | undefined)?.code ?? '';
    if (!['42P01', '3F000', '42703'].includes(code) || attempt === 5) return outcome;
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
  }
}

/** A throwaway database migrated up to `last` (from the migration files, as an installation of that version had it). */
async function migratedTo(last: string) {
  const database = await throwawayDatabase();
  const db = openDatabase(loadConfig({ PREP_LOG_LEVEL: 'silent', PREP_PUBLIC_URL: 'http://localhost:8080', PREP_ENCRYPTION_KEY: 'ab'.repeat(32), ...database.env }));
  const dir = path.resolve('src/db/migrations');
  const migrations: Record<string, Migration> = {};
  for (const file of readdirSync(dir).filter((f) => /^\d{4}_.*\.ts$/.test(f)).sort()) migrations[file.replace(/\.ts$/, '')] = await import(path.join(dir, file));
  const migrator = new Migrator({ db: db.kysely, provider: { getMigrations: async () => migrations }, ...(db.schema ? { migrationTableSchema: db.schema } : {}) });
  expect((await settled(() => migrator.migrateTo(last))).error).toBeUndefined();
  return { database, db, migrator };
}

// The migrations of jobs' organisations (0027), topic owners (0028) and folded search text (0029) run on a database
// that already holds jobs, organisations' topics and questions, as an upgraded installation's does.
it('0027-0029 upgrade a database that holds jobs, topics and questions', async () => {
  const { database, db, migrator } = await migratedTo('0026_activity_range_indexes');
  try {

    const k = db.kysely as any;
    const [a, b] = [newId(), newId()];
    for (const id of [a, b]) await k.insertInto('organizations').values({ id, name: id, created_at: 1 }).execute();
    await k.insertInto('question_bank_taxonomy').values([
      { kind: 'category', slug: 'coding', name: 'Coding', description: null },
      { kind: 'topic', slug: 'shared', name: 'Shared', description: null },
      { kind: 'topic', slug: 'both', name: 'Both', description: null },
      { kind: 'topic', slug: 'org-only', name: 'Org Only', description: 'd' },
    ]).execute();
    const question = (org: string | null, title: string) => ({
      id: newId(), organization_id: org, slug: newId(), title, title_key: title.toLowerCase(), prompt: 'Count every ﬁnch on the Straße', category: 'coding',
      difficulty: 'easy', difficulty_rank: 1, guidance: null, problem_id: null, source: org ? 'organization' : 'prep', link: null, created_at: 1, updated_at: 1,
    });
    const [shared, ofA, ofB] = [question(null, 'Ελλάδα census'), question(a, 'Census of A'), question(b, 'Census of B')];
    await k.insertInto('question_bank_questions').values([shared, ofA, ofB]).execute();
    await k.insertInto('question_bank_question_topics').values([
      { question_id: shared.id, topic: 'shared' }, { question_id: shared.id, topic: 'both' }, { question_id: ofA.id, topic: 'both' },
      { question_id: ofA.id, topic: 'org-only' }, { question_id: ofB.id, topic: 'org-only' },
    ]).execute();
    if (db.dialect === 'sqlite') {
      await k.insertInto('question_bank_fts').values([shared, ofA, ofB].map((q) => ({ question_id: q.id, title: q.title, body: q.prompt }))).execute();
    }
    const job = newId();
    await k.insertInto('background_jobs').values({
      id: job, kind: 'k', payload: 'null', status: 'queued', run_at: 1, attempts: 0, max_attempts: 5, unique_key: null,
      locked_by: null, lease_until: null, last_error: null, created_at: 1, updated_at: 1,
    }).execute();

    expect((await settled(() => migrator.migrateToLatest())).error).toBeUndefined();

    // A topic only organisations' questions have goes to each of them; those a shared question has stay shared.
    const taxonomy = await k.selectFrom('question_bank_taxonomy').select(['owner', 'kind', 'slug', 'name', 'description']).execute();
    expect(taxonomy).toHaveLength(5);
    expect(taxonomy).toEqual(expect.arrayContaining([
      { owner: '', kind: 'category', slug: 'coding', name: 'Coding', description: null },
      { owner: '', kind: 'topic', slug: 'shared', name: 'Shared', description: null },
      { owner: '', kind: 'topic', slug: 'both', name: 'Both', description: null },
      { owner: a, kind: 'topic', slug: 'org-only', name: 'Org Only', description: 'd' },
      { owner: b, kind: 'topic', slug: 'org-only', name: 'Org Only', description: 'd' },
    ]));
    // The questions already stored are found by their folded words.
    const found = db.dialect === 'sqlite'
      ? async (word: string) => (await sql<{ id: string }>`select question_id as id from question_bank_fts where question_bank_fts match ${word}`.execute(k)).rows.map((r) => r.id)
      : async (word: string) => (await sql<{ id: string }>`select id from question_bank_questions where search @@ to_tsquery('english', ${word})`.execute(k)).rows.map((r) => r.id);
    expect((await found('finch')).sort()).toEqual([shared.id, ofA.id, ofB.id].sort());
    expect((await found('strasse')).sort()).toEqual([shared.id, ofA.id, ofB.id].sort());
    expect(await found('ελλαδα')).toEqual([shared.id]);
    // A job queued before is the service's own, still queued.
    expect(await k.selectFrom('background_jobs').select(['id', 'status', 'organization_id']).execute()).toEqual([{ id: job, status: 'queued', organization_id: null }]);
  } finally {
    await db.close();
    await database.drop();
  }
});

// The final sigma (0030): questions stored before it, with ς in their text, are found by σ and by ς on both engines
// (PostgreSQL's column is computed again; SQLite's tokenizer already read ς as σ). Stop words (0031): PostgreSQL's
// column keeps them, so a phrase's inner stop word is that word in the questions already stored too.
it('0030-0031 fold the final sigma and keep stop words of the questions a database already holds', async () => {
  const { database, db, migrator } = await migratedTo('0029_question_bank_search_fold');
  try {

    const k = db.kysely as any;
    await k.insertInto('question_bank_taxonomy').values([{ owner: '', kind: 'category', slug: 'coding', name: 'Coding', description: null }]).execute();
    const question = (title: string, prompt: string) => ({
      id: newId(), organization_id: null, slug: newId(), title, title_key: title.toLowerCase(), prompt, category: 'coding',
      difficulty: 'easy', difficulty_rank: 1, guidance: null, problem_id: null, source: 'prep', link: null, created_at: 1, updated_at: 1,
    });
    const [final, capital, plain] = [question('Ο σοφός λόγος', 'Count the words'), question('ΣΟΦΟΣ census', 'Count them'), question('Census', 'Count every ΛΟΓΟΣ twice')];
    await k.insertInto('question_bank_questions').values([final, capital, plain]).execute();
    if (db.dialect === 'sqlite') {
      // As 0029 wrote them: accents folded, ς kept.
      await k.insertInto('question_bank_fts').values([
        { question_id: final.id, title: 'Ο σοφος λογος', body: final.prompt }, { question_id: capital.id, title: capital.title, body: capital.prompt },
        { question_id: plain.id, title: plain.title, body: plain.prompt },
      ]).execute();
    }

    expect((await settled(() => migrator.migrateToLatest())).error).toBeUndefined();

    // A phrase as a search writes it for each engine (parseSearch): lower case, ς as σ.
    const found = db.dialect === 'sqlite'
      ? async (...words: string[]) => (await sql<{ id: string }>`select question_id as id from question_bank_fts where question_bank_fts match ${`"${words.join(' ')}"`}`
        .execute(k)).rows.map((r) => r.id).sort()
      : async (...words: string[]) => (await sql<{ id: string }>`select id from question_bank_questions where search @@ to_tsquery('prep_english', ${words.map((w) => `'${w}'`).join(' <-> ')})`
        .execute(k)).rows.map((r) => r.id).sort();
    expect(await found('σοφοσ')).toEqual([final.id, capital.id].sort());
    expect(await found('λογοσ')).toEqual([final.id, plain.id].sort());
    expect(await found('count', 'the', 'words')).toEqual([final.id]);
    expect(await found('count', 'every', 'λογοσ')).toEqual([plain.id]);
  } finally {
    await db.close();
    await database.drop();
  }
});
