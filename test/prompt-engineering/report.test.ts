import { describe, expect, it } from 'vitest';
import type { PromptAttemptsTable } from '../../src/db/schema.js';
import { buildReport, type ReportTask } from '../../src/modules/prompt-engineering/report.js';

const task: ReportTask = { id: 't1', title: 'Task', skill: 'extraction', attempt_budget: 5, pass_threshold: 70, hidden_cases: 4 };

function attempt(over: Partial<PromptAttemptsTable>): PromptAttemptsTable {
  return {
    id: 'a1', session_id: 's1', organization_id: 'o1', livemode: 0, task_id: 't1', prompt: 'p', status: 'graded', execution: 'executed',
    execution_reason: null, results: JSON.stringify({ cases: [] }), score: 100, hidden_passed: 6, hidden_total: 6,
    craft: JSON.stringify({ elements: [] }), craft_score: 50, model: 'm', input_tokens: 1, output_tokens: 1, latency_ms: 1, error: null,
    created_at: 1_000, updated_at: 2_000, graded_at: 2_000, ...over,
  };
}

describe('the prompt-engineering report', () => {
  // Was a bug: the pass rate divided the best attempt's hidden cases passed by the task's count now, so a task an
  // organisation re-uploaded with fewer hidden cases reported 150%.
  it('reports the best attempt\'s hidden cases against the cases it ran on', () => {
    const r = buildReport({ outcome: 'completed', tasks: [task], attempts: [attempt({})], startedAt: 0, endedAt: 10_000, proctoring: [] });
    expect(r.tasks[0]).toMatchObject({ hidden_cases_passed: 6, hidden_cases_total: 6, hidden_pass_rate: 100 });
    const none = buildReport({ outcome: 'completed', tasks: [task], attempts: [], startedAt: 0, endedAt: 10_000, proctoring: [] });
    expect(none.tasks[0]).toMatchObject({ hidden_cases_passed: null, hidden_cases_total: 4, hidden_pass_rate: null });
  });
});
