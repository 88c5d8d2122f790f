import { PostgresAdapter, type Kysely } from 'kysely';
import type { Database, QuestionBankQuestionsTable } from '../../db/schema.js';
import { foldSearchText } from './search.js';

export type QuestionRow = QuestionBankQuestionsTable;

/** A question's FTS5 entry: its text folded as a search is (foldSearchText), before the tokenizer reads it. */
export const ftsEntry = (row: Pick<QuestionRow, 'id' | 'title' | 'prompt'>) =>
  ({ question_id: row.id, title: foldSearchText(row.title), body: foldSearchText(row.prompt ?? '') });

/**
 * The one way a question is written: its row, its topics and, on SQLite, its full-text entry (PostgreSQL derives
 * its tsvector column itself). Inside the caller's transaction.
 */
export async function saveQuestion(tx: Kysely<Database>, row: QuestionRow, topics: readonly string[]): Promise<void> {
  const { id, created_at: _created, ...changes } = row;
  const updated = await tx.updateTable('question_bank_questions').set(changes).where('id', '=', id).executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) await tx.insertInto('question_bank_questions').values(row).execute();
  await tx.deleteFrom('question_bank_question_topics').where('question_id', '=', id).execute();
  if (topics.length > 0) await tx.insertInto('question_bank_question_topics').values(topics.map((topic) => ({ question_id: id, topic }))).execute();
  if (!(tx.getExecutor().adapter instanceof PostgresAdapter)) {
    // question_id is not indexed in FTS5: a delete scans, so only an existing question's entry is replaced.
    if (Number(updated.numUpdatedRows) > 0) await tx.deleteFrom('question_bank_fts').where('question_id', '=', id).execute();
    await tx.insertInto('question_bank_fts').values(ftsEntry(row)).execute();
  }
}

/** New questions in bulk (a fresh database loads the whole bank): rows, topics and search entries, in chunks. */
export async function insertQuestions(tx: Kysely<Database>, entries: ReadonlyArray<{ row: QuestionRow; topics: readonly string[] }>): Promise<void> {
  const sqlite = !(tx.getExecutor().adapter instanceof PostgresAdapter);
  for (let i = 0; i < entries.length; i += 50) {
    const chunk = entries.slice(i, i + 50);
    await tx.insertInto('question_bank_questions').values(chunk.map((e) => e.row)).execute();
    const topics = chunk.flatMap((e) => e.topics.map((topic) => ({ question_id: e.row.id, topic })));
    if (topics.length > 0) await tx.insertInto('question_bank_question_topics').values(topics).execute();
    if (sqlite) await tx.insertInto('question_bank_fts').values(chunk.map((e) => ftsEntry(e.row))).execute();
  }
}

export async function deleteQuestions(tx: Kysely<Database>, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.deleteFrom('question_bank_questions').where('id', 'in', ids).execute();
  if (!(tx.getExecutor().adapter instanceof PostgresAdapter)) await tx.deleteFrom('question_bank_fts').where('question_id', 'in', ids).execute();
}
