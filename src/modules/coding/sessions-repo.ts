import { sql, type Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { CodingSessionProblemsTable, CodingSessionsTable, Database } from '../../db/schema.js';
import { createAssessmentRepo } from '../assessments/repo.js';

/** Coding sessions: the shared lifecycle's SQL over `coding_sessions`, and the problems each session locks. */
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
    /** Erasure: the code the person wrote goes; the submissions stay (verdicts, counts) for the anonymous session. */
    eraseSources: (tx: Kysely<Database>, sessionIds: string[]) => tx.updateTable('coding_submissions').set({ source: '' })
      .where('session_id', 'in', sessionIds).execute(),
    markScored: (tx: Kysely<Database>, sessionId: string, problemId: string) => tx.updateTable('coding_session_problems').set({ scored: 1 })
      .where('session_id', '=', sessionId).where('problem_id', '=', problemId).execute(),
  };
}

export type CodingSessionRepo = ReturnType<typeof createCodingSessionRepo>;
