import { sql, type Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { CodingSessionProblemsTable, CodingSessionsTable, Database } from '../../db/schema.js';
import { createAssessmentRepo } from '../assessments/repo.js';

/** Coding sessions: the shared lifecycle's SQL over `coding_sessions`, and the problems each session locks. */
/** A submission's changes without the candidate's code or the compiler's output quoting it (candidate erasure). */
export function withoutCode<T extends { results?: string | null }>(changes: T): T & { source: string } {
  if (!changes.results) return { ...changes, source: '' };
  const results = JSON.parse(changes.results) as { compile?: { output?: string } | null };
  if (results.compile) results.compile.output = '';
  return { ...changes, source: '', results: JSON.stringify(results) };
}

/** A code review without the model's texts about the candidate's code (they quote it): candidate erasure. */
export function withoutReviews<T extends { problems: Array<{ review: string | null }> } | null>(review: T): T {
  return (review === null ? review : { ...review, problems: review.problems.map((p) => ({ ...p, review: null })) }) as T;
}

export function createCodingSessionRepo(database: Db) {
  return {
    ...createAssessmentRepo<CodingSessionsTable>(database, { kind: 'coding', sessions: 'coding_sessions', reports: 'coding_reports' }),
    insertProblems: (tx: Kysely<Database>, rows: CodingSessionProblemsTable[]) => tx.insertInto('coding_session_problems').values(rows).execute(),
    problems: (tx: Kysely<Database>, sessionId: string) => tx.selectFrom('coding_session_problems').selectAll()
      .where('session_id', '=', sessionId).orderBy('position').execute(),
    /** Marks one of the session's problems as having a judged submission and counts an attempt. */
    async useAttempt(tx: Kysely<Database>, sessionId: string, problemId: string, allowed: number): Promise<number | null> {
      const r = await tx.updateTable('coding_session_problems').set({ attempts_used: sql`attempts_used + 1` })
        .where('session_id', '=', sessionId).where('problem_id', '=', problemId).where('attempts_used', '<', allowed).executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return null;
      const row = await tx.selectFrom('coding_session_problems').select('attempts_used').where('session_id', '=', sessionId)
        .where('problem_id', '=', problemId).executeTakeFirstOrThrow();
      return allowed - row.attempts_used;
    },
    /**
     * Erasure: the code the person wrote goes, and the compiler's output (it quotes the code); the submissions stay
     * (verdicts, counts) for the anonymous session. Those not judged yet keep their code until the judge, which finds
     * the session anonymous under its lock, stores their outcome without it: the session is scored as it would have been.
     */
    async eraseSources(tx: Kysely<Database>, sessionIds: string[]) {
      const done = await tx.selectFrom('coding_submissions').select(['id', 'results']).where('session_id', 'in', sessionIds)
        .where('status', 'in', ['judged', 'error']).execute();
      for (const row of done) await tx.updateTable('coding_submissions').set(withoutCode({ results: row.results })).where('id', '=', row.id).execute();
    },
    /** Erasure: the model's reviews of the person's code in the sessions' reports go (the scores stay). */
    async eraseReviews(tx: Kysely<Database>, sessionIds: string[]) {
      const reports = await tx.selectFrom('coding_reports').select(['session_id', 'report']).where('session_id', 'in', sessionIds).execute();
      for (const r of reports) {
        const report = JSON.parse(r.report) as { code_review?: { problems: Array<{ review: string | null }> } | null };
        if (!report.code_review) continue;
        report.code_review = withoutReviews(report.code_review);
        await tx.updateTable('coding_reports').set({ report: JSON.stringify(report) }).where('session_id', '=', r.session_id).execute();
      }
    },
    markScored: (tx: Kysely<Database>, sessionId: string, problemId: string) => tx.updateTable('coding_session_problems').set({ scored: 1 })
      .where('session_id', '=', sessionId).where('problem_id', '=', problemId).execute(),
  };
}

export type CodingSessionRepo = ReturnType<typeof createCodingSessionRepo>;
