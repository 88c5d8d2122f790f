import type { AssertionOutcome, CaseResult } from './grading.js';

/** The points of a case's checked assertions, and whether every one passed. */
export function tally(outcomes: AssertionOutcome[]): { points: number; possible: number; passed: boolean } {
  const possible = outcomes.reduce((s, a) => s + a.weight, 0);
  const points = outcomes.reduce((s, a) => s + (a.passed ? a.weight : 0), 0);
  return { points, possible, passed: outcomes.every((a) => a.passed) };
}

/** Score 0–100 with one decimal: the weighted points earned on hidden cases. */
export function hiddenScore(cases: Array<Pick<CaseResult, 'kind' | 'points' | 'points_possible' | 'passed'>>): { score: number; passed: number; total: number } {
  const hidden = cases.filter((c) => c.kind === 'hidden');
  const possible = hidden.reduce((s, c) => s + c.points_possible, 0);
  const points = hidden.reduce((s, c) => s + c.points, 0);
  return { score: possible === 0 ? 0 : Math.round((1000 * points) / possible) / 10, passed: hidden.filter((c) => c.passed).length, total: hidden.length };
}
