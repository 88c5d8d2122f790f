import type { SubmissionView } from './judging-repo.js';
import type { Outcome } from '../assessments/lifecycle.js';

/**
 * The built-in evaluator: a deterministic, explainable judgement of a coding session from its judged
 * submissions. No model is needed; every figure says where it came from.
 */

export type EfficiencyRating = 'efficient' | 'acceptable' | 'slow' | 'too_slow' | 'not_measured';

export interface ProblemInput {
  position: number;
  slotTitle: string;
  problemId: string;
  title: string;
  attemptsUsed: number;
  attemptsAllowed: number;
  submissions: SubmissionView[];
  /** Reference CPU ms over the large cases, per reference language; absent when not measured. */
  reference: (language: string) => { language: string; largeTimeMs: number } | null;
}

export interface SubmissionResults {
  compile: { ok: boolean; output: string } | null;
  cases: Array<{ name: string; kind: 'example' | 'hidden'; large: boolean; verdict: string; passed: boolean; time_ms?: number }>;
}

const EFFICIENCY_SCORE: Record<Exclude<EfficiencyRating, 'not_measured'>, number> = { efficient: 1, acceptable: 0.7, slow: 0.3, too_slow: 0 };

/** Languages reference solutions are timed in; every other language is compared with the nearer of them. */
export const REFERENCE_LANGUAGES = ['python', 'cpp'] as const;

/**
 * Natively compiled languages go against C++, the rest against Python. Java is in the rest: the JVM's start-up, JIT
 * and GC threads cost about 45 ms of CPU per case before any work (a hello world here), more than the C++ reference
 * spends on a whole large case of most problems, so an optimal Java answer came out 9–45× C++, always `slow`.
 */
export function referenceLanguageFor(language: string): (typeof REFERENCE_LANGUAGES)[number] {
  return ['c', 'cpp', 'rust', 'go'].includes(language) ? 'cpp' : 'python';
}

/**
 * Best attempt: most hidden cases passed, then most cases passed (the examples too: an accepted attempt beats one that
 * broke an example), then least time on the large cases, then the earliest.
 */
export function bestSubmission<S extends SubmissionView>(submissions: S[]): S | null {
  const judged = submissions.filter((s) => s.status === 'judged');
  if (judged.length === 0) return null;
  return [...judged].sort((a, b) => b.hidden_passed - a.hidden_passed || b.cases_passed - a.cases_passed
    || (a.large_time_ms ?? Infinity) - (b.large_time_ms ?? Infinity) || a.created_at - b.created_at)[0]!;
}

function efficiency(p: ProblemInput, s: SubmissionView | null) {
  if (!s) return { rating: 'not_measured' as const, explanation: 'No judged submission.' };
  const results = JSON.parse(s.results ?? '{"cases":[]}') as SubmissionResults;
  const large = results.cases.filter((c) => c.large);
  if (large.length === 0) return { rating: 'not_measured' as const, explanation: 'The problem has no large cases.' };
  if (large.some((c) => c.verdict === 'TIME_LIMIT_EXCEEDED')) {
    return {
      rating: 'too_slow' as const, large_cases_timed_out: large.filter((c) => c.verdict === 'TIME_LIMIT_EXCEEDED').length,
      explanation: 'Ran out of time on large inputs: the approach is likely of a worse complexity than the problem needs.',
    };
  }
  if (large.some((c) => !c.passed)) return { rating: 'not_measured' as const, explanation: 'Large cases were not all solved, so speed was not compared.' };
  const ref = p.reference(s.language);
  if (!ref || s.large_time_ms === null) return { rating: 'not_measured' as const, explanation: 'No reference timing for this problem.' };
  const ratio = Math.max(s.large_time_ms, 1) / Math.max(ref.largeTimeMs, 1);
  const rating: EfficiencyRating = ratio <= 2.5 ? 'efficient' : ratio <= 6 ? 'acceptable' : 'slow';
  return {
    rating, candidate_time_ms: s.large_time_ms, reference_time_ms: ref.largeTimeMs, reference_language: ref.language,
    ratio: Math.round(ratio * 100) / 100,
    explanation: `CPU time on the large cases was ${ratio.toFixed(1)}× the reference solution's (${ref.language}).`,
  };
}

export function buildReport(input: {
  outcome: Outcome;
  startedAt: number | null;
  endedAt: number;
  problems: ProblemInput[];
  proctoring: Array<{ type: string; count: number }>;
  /** The model's code-quality reviews, when a model is configured. */
  codeReview: { model: string; problems: Array<{ problem_id: string; submission_id: string; review: string | null }> } | null;
}) {
  const problems = input.problems.map((p) => {
    const s = bestSubmission(p.submissions);
    const correctness = s && s.hidden_total > 0 ? s.hidden_passed / s.hidden_total : 0;
    const eff = efficiency(p, s);
    const effScore = eff.rating === 'not_measured' ? correctness : EFFICIENCY_SCORE[eff.rating];
    const score = Math.round(100 * (0.8 * correctness + 0.2 * effScore));
    return {
      position: p.position, slot_title: p.slotTitle, problem_id: p.problemId, title: p.title,
      solved: s?.verdict === 'ACCEPTED',
      verdict: s?.verdict ?? null,
      language: s?.language ?? null,
      correctness: { hidden_cases_passed: s?.hidden_passed ?? 0, hidden_cases_total: s?.hidden_total ?? 0, score: Math.round(correctness * 100) / 100 },
      efficiency: eff,
      attempts: { used: p.attemptsUsed, allowed: p.attemptsAllowed, judged: p.submissions.filter((x) => x.status === 'judged').length },
      time_to_best_seconds: s && input.startedAt !== null ? Math.max(0, Math.round((s.created_at - input.startedAt) / 1000)) : null,
      best_submission_id: s?.id ?? null,
      score,
    };
  });
  const solved = problems.filter((p) => p.solved).length;
  const overall = problems.length === 0 ? 0 : Math.round(problems.reduce((sum, p) => sum + p.score, 0) / problems.length);
  const proctoringTotal = input.proctoring.reduce((sum, e) => sum + e.count, 0);
  const summary = [
    input.outcome === 'abandoned' ? 'The candidate never started the test.' :
      input.outcome === 'timed_out' ? 'The time ran out before the candidate finished.' : 'The candidate finished the test.',
    `Solved ${solved} of ${problems.length} problem${problems.length === 1 ? '' : 's'}; overall score ${overall}/100`
      + ' (80% hidden-case correctness, 20% speed on large inputs against a reference solution).',
    ...problems.filter((p) => p.efficiency.rating === 'too_slow' || p.efficiency.rating === 'slow')
      .map((p) => `"${p.title}": ${p.efficiency.explanation}`),
    proctoringTotal > 0 ? `${proctoringTotal} proctoring signal${proctoringTotal === 1 ? '' : 's'} recorded (signals only, not proof of misconduct).` : 'No proctoring signals.',
  ].join(' ');
  return {
    object: 'coding_report' as const,
    outcome: input.outcome,
    overall_score: overall,
    problems_solved: solved,
    problems_total: problems.length,
    duration_seconds: input.startedAt === null ? null : Math.max(0, Math.round((input.endedAt - input.startedAt) / 1000)),
    summary,
    problems,
    proctoring: { total: proctoringTotal, by_type: input.proctoring },
    code_review: input.codeReview,
    evaluator: input.codeReview ? `built-in + ${input.codeReview.model}` : 'built-in',
  };
}

export type CodingReport = ReturnType<typeof buildReport>;
