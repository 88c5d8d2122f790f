import { describe, expect, it } from 'vitest';
import { judgeFinalCode, type JudgedProblem } from '../../src/modules/interviews/code-tests.js';
import type { PlannedQuestion, Turn } from '../../src/modules/interviews/interviewer/types.js';
import { SandboxBusyError, SandboxUnavailableError, type ExecuteRequest, type Sandbox } from '../../src/sandbox/sandbox.js';

// Judging each problem's final code after the interview: which snapshot, which cases, and what happens when the
// tests cannot run. The real sandbox is exercised end to end in test/modules/interviews-tools.test.ts.

const problemQuestion = (position: number, slug: string | null): PlannedQuestion => ({
  position, source: 'bank', questionId: null, title: `Q${position}`, prompt: 'Solve it.', keyPoints: [], followUps: [], minutes: 10,
  problem: slug ? { slug, title: slug, statement: '…' } : null,
});
const code = (seq: number, position: number, language: string, source: string): Turn => ({
  seq, speaker: 'candidate', kind: 'code', text: 'Shared code.', questionPosition: position, atMs: seq * 1000, code: { seq, language, source, run: null },
});
const PROBLEM: JudgedProblem = {
  examples: JSON.stringify([{ input: '1\n', output: '1\n' }]), hidden_cases: JSON.stringify([{ name: 'hidden-1', input: '2\n', output: '4\n' }, { name: 'hidden-2', input: '3\n', output: '9\n' }]),
  comparator: 'exact', time_limit_ms: 1000, memory_limit_mb: 256,
};

/** A sandbox that knows python and answers each case by `verdict`, recording what it was asked to run. */
function fakeSandbox(verdict: (input: string, source: string) => string, fail?: Error) {
  const asked: ExecuteRequest[] = [];
  const sandbox = {
    languages: async () => [{ id: 'python' }],
    execute: async (request: ExecuteRequest) => {
      asked.push(request);
      if (fail) throw fail;
      return { compile: null, cases: request.cases.map((c) => ({ name: c.name, verdict: verdict(c.input, request.source) })) };
    },
  } as unknown as Sandbox;
  return { sandbox, asked };
}

describe('judging the final code of each problem', () => {
  it('judges the last snapshot at each problem\'s question on its examples and hidden cases; questions without a problem or code are left out', async () => {
    const { sandbox, asked } = fakeSandbox((input, source) => (source === 'good' || input === '1\n' ? 'ACCEPTED' : 'WRONG_ANSWER'));
    const plan = [problemQuestion(0, 'squares'), problemQuestion(1, null), problemQuestion(2, 'squares-again')];
    const turns = [code(2, 0, 'python', 'good'), code(4, 0, 'python', 'bad'), code(6, 1, 'python', 'good')];
    const judged = await judgeFinalCode({ sandbox, budgetMs: 5000, problem: async () => PROBLEM }, plan, turns, true);
    expect(judged).toEqual([{ questionPosition: 0, problem: 'squares', turn: 4, language: 'python', passed: 1, total: 3, verdict: 'WRONG_ANSWER', note: null }]);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ source: 'bad', comparator: 'exact', priority: 'batch', budgetMs: 5000, limits: { timeLimitMs: 1000, memoryLimitMb: 256 } });
    expect(asked[0].cases.map((c) => c.name)).toEqual(['example-1', 'hidden-1', 'hidden-2']);
  });

  it('says why when the tests cannot run; a busy sandbox fails a strict run (processing retries) and is noted on the last', async () => {
    const plan = [problemQuestion(0, 'squares')];
    const deps = (sandbox: Sandbox, problem: JudgedProblem | null = PROBLEM) => ({ sandbox, budgetMs: 5000, problem: async () => problem ?? undefined });
    const ok = fakeSandbox(() => 'ACCEPTED').sandbox;
    const noteOf = async (d: ReturnType<typeof deps>, turns: Turn[], strict = true) => (await judgeFinalCode(d, plan, turns, strict))[0];
    expect(await noteOf(deps(ok), [code(2, 0, 'cobol', 'x')])).toMatchObject({ passed: null, total: null, verdict: null, note: expect.stringContaining('cobol is not available') });
    expect(await noteOf(deps(ok, null), [code(2, 0, 'python', 'x')])).toMatchObject({ passed: null, note: expect.stringContaining('no longer in the catalogue') });
    expect(await noteOf(deps(fakeSandbox(() => 'ACCEPTED', new SandboxUnavailableError('no bwrap')).sandbox), [code(2, 0, 'python', 'x')]))
      .toMatchObject({ passed: null, note: expect.stringContaining('sandbox is unavailable') });
    const busy = deps(fakeSandbox(() => 'ACCEPTED', new SandboxBusyError('busy')).sandbox);
    await expect(judgeFinalCode(busy, plan, [code(2, 0, 'python', 'x')], true)).rejects.toBeInstanceOf(SandboxBusyError);
    expect(await noteOf(busy, [code(2, 0, 'python', 'x')], false)).toMatchObject({ passed: null, note: expect.stringContaining('stayed busy') });
  });
});
