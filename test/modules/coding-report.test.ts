import { describe, expect, it } from 'vitest';
import type { CodingSubmissionsTable } from '../../src/db/schema.js';
import { bestSubmission, buildReport, referenceLanguageFor } from '../../src/modules/coding/report.js';

function submission(id: string, fields: Partial<CodingSubmissionsTable>): CodingSubmissionsTable {
  return {
    id, organization_id: 'o', livemode: 0, session_id: 's', problem_id: 'p', language: 'python', source: '', status: 'judged',
    verdict: 'ACCEPTED', results: JSON.stringify({ compile: null, cases: [] }), cases_passed: 12, cases_total: 12, hidden_passed: 10,
    hidden_total: 10, large_time_ms: null, max_time_ms: null, max_memory_kb: null, error: null, created_at: 1_000, updated_at: 1_000,
    judged_at: 1_000, ...fields,
  };
}

describe('the best submission of a problem', () => {
  // Was a bug: a later attempt passing every hidden case but failing an example beat an earlier accepted one on time,
  // and the report said the problem was not solved.
  it('of equal hidden cases passed, one that passed every case comes first', () => {
    const accepted = submission('a', { large_time_ms: 500, created_at: 1_000 });
    const brokeAnExample = submission('b', { verdict: 'WRONG_ANSWER', cases_passed: 11, large_time_ms: 300, created_at: 2_000 });
    expect(bestSubmission([accepted, brokeAnExample])?.id).toBe('a');
    const report = buildReport({
      outcome: 'completed', startedAt: 0, endedAt: 10_000, proctoring: [], codeReview: null,
      problems: [{ position: 1, slotTitle: 'One', problemId: 'p', title: 'P', attemptsUsed: 2, attemptsAllowed: 10, submissions: [accepted, brokeAnExample], reference: () => null }],
    });
    expect(report.problems[0]).toMatchObject({ solved: true, verdict: 'ACCEPTED', best_submission_id: 'a' });
    expect(report.problems_solved).toBe(1);
  });
});

describe('the efficiency of a problem', () => {
  // Was a bug: Java was timed against the C++ reference, and the JVM's start-up alone (about 45 ms of CPU per case)
  // outweighs it: an optimal Java answer to windowsill-pot-swaps (merge-sort inversions) took 456 ms over the large
  // cases against C++ 52 ms (8.8×, `slow`) and Python 441 ms; ridge-beacon-pairs' stack 546 ms against C++ 12 ms.
  it('compares a Java submission with the Python reference, and natively compiled ones with the C++ reference', () => {
    const measured: Record<string, number> = { python: 441, cpp: 52 };
    const rate = (language: string, largeTimeMs: number) => buildReport({
      outcome: 'completed', startedAt: 0, endedAt: 10_000, proctoring: [], codeReview: null,
      problems: [{
        position: 1, slotTitle: 'One', problemId: 'p', title: 'P', attemptsUsed: 1, attemptsAllowed: 10,
        submissions: [submission('a', { language, large_time_ms: largeTimeMs, results: JSON.stringify({ compile: null, cases: [{ name: 'large-1', kind: 'hidden', large: true, verdict: 'ACCEPTED', passed: true, time_ms: largeTimeMs }] }) })],
        reference: (lang) => ({ language: referenceLanguageFor(lang), largeTimeMs: measured[referenceLanguageFor(lang)]! }),
      }],
    }).problems[0]!.efficiency;
    expect(rate('java', 456)).toMatchObject({ rating: 'efficient', reference_language: 'python' });
    expect(rate('cpp', 60)).toMatchObject({ rating: 'efficient', reference_language: 'cpp' });
    expect(rate('go', 400)).toMatchObject({ rating: 'slow', reference_language: 'cpp' });
    expect(rate('javascript', 500)).toMatchObject({ rating: 'efficient', reference_language: 'python' });
  });
});
