import type { CodingProblemsTable } from '../../db/schema.js';
import { SandboxBusyError, SandboxUnavailableError, type Sandbox } from '../../sandbox/sandbox.js';
import { judgeCases } from '../coding/judging.js';
import type { PlannedProblem, PlannedQuestion, ProblemTests, Turn } from './interviewer/types.js';

export type JudgedProblem = Pick<CodingProblemsTable, 'examples' | 'hidden_cases' | 'comparator' | 'time_limit_ms' | 'memory_limit_mb'>;

/**
 * The final code of each problem put in the editor, judged on the problem's own cases (never shown: only the counts
 * and the verdict are reported), so the report rates correctness by tests rather than by a run the candidate chose.
 * `strict`: a busy or failing sandbox throws (processing runs again later); otherwise that problem is reported as
 * not judged and the report falls back to the runs made during the interview.
 */
export async function judgeFinalCode(deps: {
  sandbox: Sandbox; budgetMs: number; problem(problem: PlannedProblem): Promise<JudgedProblem | undefined>;
}, plan: PlannedQuestion[], turns: Turn[], strict: boolean): Promise<ProblemTests[]> {
  const judged: ProblemTests[] = [];
  let languages: Set<string> | null = null;
  for (const q of plan) {
    if (!q.problem) continue;
    const last = turns.filter((t) => t.kind === 'code' && t.code && t.questionPosition === q.position).sort((a, b) => a.seq - b.seq).at(-1);
    if (!last) continue;
    const code = last.code!;
    const base = { questionPosition: q.position, problem: q.problem.slug, turn: last.seq, language: code.language };
    const notJudged = (note: string): ProblemTests => ({ ...base, passed: null, total: null, verdict: null, note });
    const problem = await deps.problem(q.problem);
    if (!problem) {
      judged.push(notJudged('The problem is no longer in the catalogue, so its tests could not be run.'));
      continue;
    }
    try {
      languages ??= new Set((await deps.sandbox.languages()).map((l) => l.id));
      if (!languages.has(code.language)) {
        judged.push(notJudged(`${code.language} is not available in the code sandbox, so the tests could not be run.`));
        continue;
      }
      const cases = judgeCases(problem);
      const execution = await deps.sandbox.execute({
        language: code.language, source: code.source, comparator: problem.comparator, priority: 'batch', budgetMs: deps.budgetMs,
        limits: { timeLimitMs: problem.time_limit_ms, memoryLimitMb: problem.memory_limit_mb }, cases,
      });
      const compileFailed = execution.compile !== null && !execution.compile.ok;
      const passed = compileFailed ? 0 : execution.cases.filter((c) => c.verdict === 'ACCEPTED').length;
      const failing = execution.cases.find((c) => c.verdict !== 'ACCEPTED');
      judged.push({ ...base, passed, total: cases.length, verdict: compileFailed ? 'COMPILE_ERROR' : failing?.verdict ?? 'ACCEPTED', note: null });
    } catch (error) {
      if (error instanceof SandboxUnavailableError) judged.push(notJudged('The code sandbox is unavailable on this server, so the tests could not be run.'));
      else if (strict) throw error;
      else judged.push(notJudged(error instanceof SandboxBusyError ? 'The code sandbox stayed busy, so the tests could not be run.' : 'The tests could not be run.'));
    }
  }
  return judged;
}
