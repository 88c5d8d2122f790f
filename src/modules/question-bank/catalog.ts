import { readFileSync } from 'node:fs';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import {
  difficultyRank, parseQuestions, questionId, readBank, readTaxonomy, titleKey, validateQuestions, QuestionFileError, type QuestionFile, type Taxonomy,
} from './content.js';
import { deleteQuestions, insertQuestions, saveQuestion, type QuestionRow } from './store.js';

/**
 * Loads the shared bank from `catalog/question-bank/`: the taxonomy, then every question, written only when it
 * changed (ids derive from slugs, so statistics and links survive a reload); a shared question gone from the files
 * is removed. One transaction: a bad file loads nothing.
 */
export async function loadQuestionBank(db: Kysely<Database>, now = Date.now()): Promise<{ added: number; updated: number; removed: number }> {
  const taxonomy = readTaxonomy();
  return db.transaction().execute(async (tx) => {
    await saveTaxonomy(tx, taxonomy);
    const problems = await problemIds(tx, null);
    const bank = readBank(taxonomy, new Set(problems.keys()));
    const existing = new Map((await tx.selectFrom('question_bank_questions').selectAll().where('organization_id', 'is', null).where('source', '=', 'prep').execute())
      .map((r) => [r.id, r]));
    const topicsOf = await sharedTopics(tx);
    const added: Array<{ row: QuestionRow; topics: string[] }> = [];
    let updated = 0;
    for (const { category, question } of bank) {
      const row = toRow(question, category, null, 'prep', problems, now);
      const before = existing.get(row.id);
      existing.delete(row.id);
      if (!before) {
        added.push({ row, topics: question.topics });
        continue;
      }
      if (sameContent(before, row) && (topicsOf.get(row.id) ?? []).join() === [...question.topics].sort().join()) continue;
      await saveQuestion(tx, { ...row, created_at: before.created_at }, question.topics);
      updated++;
    }
    await insertQuestions(tx, added);
    await deleteQuestions(tx, [...existing.keys()]);
    return { added: added.length, updated, removed: existing.size };
  });
}

/** An organisation's own questions, from a file in the catalogue format plus `category`; visible only to it. */
export async function addOrganizationQuestions(db: Kysely<Database>, organizationId: string, file: string, now = Date.now()): Promise<string[]> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new QuestionFileError(`${file}: ${(error as Error).message}`);
  }
  const entries = parseQuestions(text, file).map((q) => {
    // Anything but an object (null, a number, an array) is left whole for validateQuestions to name.
    if (!q || typeof q !== 'object' || Array.isArray(q)) return { category: '', question: q };
    const { category, ...question } = q as QuestionFile & { category?: unknown };
    return { category: typeof category === 'string' ? category : '', question };
  });
  return db.transaction().execute(async (tx) => {
    const taxonomy = await storedTaxonomy(tx, organizationId);
    const problems = await problemIds(tx, organizationId);
    validateQuestions(entries, taxonomy, new Set(problems.keys()), file);
    const ids: string[] = [];
    for (const { category, question } of entries) {
      const row = toRow(question, category, organizationId, 'organization', problems, now);
      const before = await tx.selectFrom('question_bank_questions').select('created_at').where('id', '=', row.id).executeTakeFirst();
      await saveQuestion(tx, before ? { ...row, created_at: before.created_at } : row, question.topics);
      ids.push(row.id);
    }
    return ids;
  });
}

function toRow(q: QuestionFile, category: string, organizationId: string | null, source: QuestionRow['source'], problems: Map<string, string>, now: number): QuestionRow {
  return {
    id: questionId(organizationId, q.slug), organization_id: organizationId, slug: q.slug, title: q.title, title_key: titleKey(q.title),
    prompt: q.prompt, category, difficulty: q.difficulty, difficulty_rank: difficultyRank(q.difficulty),
    guidance: JSON.stringify({ key_points: q.guidance.key_points, follow_ups: q.guidance.follow_ups }),
    problem_id: q.problem === undefined ? null : problems.get(q.problem) ?? null, source, link: null, created_at: now, updated_at: now,
  };
}

const CONTENT: Array<keyof QuestionRow> = ['slug', 'title', 'title_key', 'prompt', 'category', 'difficulty', 'guidance', 'problem_id'];
const sameContent = (a: QuestionRow, b: QuestionRow) => CONTENT.every((k) => a[k] === b[k]);

async function saveTaxonomy(tx: Kysely<Database>, taxonomy: Taxonomy): Promise<void> {
  const rows = [
    ...taxonomy.categories.map((c) => ({ owner: '', kind: 'category' as const, slug: c.slug, name: c.name, description: c.description })),
    ...taxonomy.topics.map((t) => ({ owner: '', kind: 'topic' as const, slug: t.slug, name: t.name, description: null })),
  ];
  // Every start loads the bank: write only the entries that are new or changed.
  const stored = new Map((await tx.selectFrom('question_bank_taxonomy').selectAll().where('owner', '=', '').execute()).map((r) => [`${r.kind}:${r.slug}`, r]));
  for (const row of rows) {
    const before = stored.get(`${row.kind}:${row.slug}`);
    if (before && before.name === row.name && before.description === row.description) continue;
    await tx.insertInto('question_bank_taxonomy').values(row)
      .onConflict((oc) => oc.columns(['owner', 'kind', 'slug']).doUpdateSet({ name: row.name, description: row.description })).execute();
  }
}

/**
 * The taxonomy an organisation's own questions may name: the shared one and the topics its own imports brought (never
 * another organisation's). A slug in both is the shared entry.
 */
export async function storedTaxonomy(tx: Kysely<Database>, organizationId: string): Promise<Taxonomy> {
  const all = await tx.selectFrom('question_bank_taxonomy').selectAll().where('owner', 'in', ['', organizationId]).execute();
  const rows = all.filter((r) => r.owner === '' || !all.some((s) => s.owner === '' && s.kind === r.kind && s.slug === r.slug));
  return {
    categories: rows.filter((r) => r.kind === 'category').map((r) => ({ slug: r.slug, name: r.name, description: r.description ?? '' })),
    topics: rows.filter((r) => r.kind === 'topic').map((r) => ({ slug: r.slug, name: r.name })),
  };
}

/** Coding problems a question may name: the shared ones, and the organisation's own. */
async function problemIds(tx: Kysely<Database>, organizationId: string | null): Promise<Map<string, string>> {
  const rows = await tx.selectFrom('coding_problems').select(['id', 'slug', 'organization_id'])
    .where((eb) => (organizationId === null ? eb('organization_id', 'is', null) : eb.or([eb('organization_id', 'is', null), eb('organization_id', '=', organizationId)])))
    .execute();
  // An organisation's own problem wins over a shared one of the same slug.
  return new Map(rows.sort((a, b) => (a.organization_id === null ? 0 : 1) - (b.organization_id === null ? 0 : 1)).map((r) => [r.slug, r.id]));
}

/** The topics of the shared bank as stored, sorted, per question. */
async function sharedTopics(tx: Kysely<Database>): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const rows = await tx.selectFrom('question_bank_question_topics as t').innerJoin('question_bank_questions as q', 'q.id', 't.question_id')
    .select(['t.question_id', 't.topic']).where('q.organization_id', 'is', null).where('q.source', '=', 'prep').execute();
  for (const r of rows) {
    const list = out.get(r.question_id) ?? [];
    list.push(r.topic);
    out.set(r.question_id, list);
  }
  for (const list of out.values()) list.sort(); // as the files' topics are compared (not the database's collation)
  return out;
}
