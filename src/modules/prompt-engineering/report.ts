import type { PromptAttemptsTable } from '../../db/schema.js';
import type { Outcome } from '../assessments/lifecycle.js';
import { attemptsUsedOf } from './content.js';
import type { CraftAnalysis, CraftKey } from './craft.js';

/** executed: at least one prompt ran on the model; unavailable: prompts were written but none could run; not_attempted: no prompt. */
export type ReportExecution = 'executed' | 'unavailable' | 'not_attempted';

export interface TaskReport {
  position: number;
  task_id: string;
  title: string;
  skill: string;
  attempts_used: number;
  attempt_budget: number;
  best_attempt_id: string | null;
  /** The best attempt's score on hidden cases (0–100); null when no attempt ran on the model. */
  score: number | null;
  hidden_cases_passed: number | null;
  hidden_cases_total: number;
  hidden_pass_rate: number | null;
  pass_threshold: number;
  passed: boolean | null;
  craft_score: number;
  craft_found: CraftKey[];
  time_seconds: number;
}

export interface PromptReport {
  outcome: Outcome;
  execution: ReportExecution;
  overall_score: number | null;
  craft_score: number;
  tasks_passed: number | null;
  tasks_total: number;
  duration_seconds: number | null;
  model: string | null;
  tokens: { input: number; output: number };
  proctoring: Array<{ type: string; count: number }>;
  summary: string;
  tasks: TaskReport[];
}

export interface ReportTask {
  id: string;
  title: string;
  skill: string;
  attempt_budget: number;
  pass_threshold: number;
  hidden_cases: number;
}

const round1 = (n: number) => Math.round(n * 10) / 10;
const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((s, x) => s + x, 0) / xs.length);
const executed = (a: PromptAttemptsTable) => a.status === 'graded' && a.execution === 'executed';

/**
 * Seconds spent per task, estimated from the attempts: the time from the start (or the previous attempt on any
 * task) to each attempt is counted for that attempt's task.
 */
function timePerTask(attempts: PromptAttemptsTable[], startedAt: number | null): Map<string, number> {
  const spent = new Map<string, number>();
  let previous = startedAt;
  for (const a of [...attempts].sort((x, y) => x.created_at - y.created_at || x.id.localeCompare(y.id))) {
    if (previous !== null) spent.set(a.task_id, (spent.get(a.task_id) ?? 0) + Math.max(0, a.created_at - previous) / 1000);
    previous = a.created_at;
  }
  return spent;
}

/**
 * The best attempt: the highest executed score (the earliest of equals); without one, the best craft, of any attempt
 * (craft is analysed at submission, so an attempt the grader could not grade has it too).
 */
function bestOf(attempts: PromptAttemptsTable[]): PromptAttemptsTable | null {
  const ran = attempts.filter(executed);
  const pool = ran.length > 0 ? ran : attempts.filter((a) => a.status === 'graded' || a.status === 'error');
  const key = (a: PromptAttemptsTable) => (ran.length > 0 ? a.score ?? 0 : a.craft_score);
  return pool.reduce<PromptAttemptsTable | null>((best, a) => (best === null || key(a) > key(best) ? a : best), null);
}

function describe(r: Omit<PromptReport, 'summary'>, tasksPassed: number | null, noModel: boolean): string {
  const parts: string[] = [];
  if (r.outcome === 'abandoned') return 'The assignment lapsed before the candidate opened it; nothing was written.';
  if (r.outcome === 'timed_out') parts.push('Time ran out before the candidate finished.');
  if (r.execution === 'executed') {
    parts.push(`Execution score ${r.overall_score} of 100: each prompt was run on hidden cases with ${r.model} and its outputs checked by the task's assertions; ${tasksPassed} of ${r.tasks_total} tasks reached their pass threshold.`);
    parts.push(`Prompt craft ${r.craft_score} of 100, a secondary measure of how the prompts are built (role, task, context, constraints, format, examples, delimited input, a guard against injected instructions).`);
  } else if (r.execution === 'unavailable') {
    parts.push(noModel
      ? 'No output was produced: no model was configured when these prompts were graded, so none was run on any case and there is no execution score.'
      : 'No output was checked: grading failed for every attempt (the model did not answer, or the outputs could not be checked), so there is no execution score.');
    parts.push(`This report grades prompt craft only: ${r.craft_score} of 100, from how the prompts are built, which says nothing about whether they would have worked.`);
  } else {
    parts.push('The candidate submitted no prompt, so there is nothing to score.');
  }
  return parts.join(' ');
}

/** The session's report, from its tasks and every attempt (each graded, or failed by the grader). */
export function buildReport(input: {
  outcome: Outcome; tasks: ReportTask[]; attempts: PromptAttemptsTable[]; startedAt: number | null; endedAt: number;
  proctoring: Array<{ type: string; count: number }>;
}): PromptReport {
  const { outcome, tasks, attempts, startedAt, endedAt } = input;
  const spent = timePerTask(attempts, startedAt);
  const anyRan = attempts.some(executed);
  const taskReports: TaskReport[] = tasks.map((t, i) => {
    const mine = attempts.filter((a) => a.task_id === t.id);
    const best = bestOf(mine);
    const ran = best !== null && executed(best);
    const craft = best ? (JSON.parse(best.craft) as CraftAnalysis) : null;
    // The cases the best attempt ran on: the task may have been uploaded again since, with other hidden cases.
    const hiddenTotal = ran ? best.hidden_total : t.hidden_cases;
    return {
      position: i + 1, task_id: t.id, title: t.title, skill: t.skill,
      attempts_used: attemptsUsedOf(mine.map((a) => a.status)), attempt_budget: t.attempt_budget,
      best_attempt_id: best?.id ?? null,
      score: ran ? best.score : anyRan ? 0 : null,
      hidden_cases_passed: ran ? best.hidden_passed : null, hidden_cases_total: hiddenTotal,
      hidden_pass_rate: ran && hiddenTotal > 0 ? round1((100 * (best.hidden_passed ?? 0)) / hiddenTotal) : null,
      pass_threshold: t.pass_threshold, passed: anyRan ? ran && (best.score ?? 0) >= t.pass_threshold : null,
      craft_score: best?.craft_score ?? 0, craft_found: craft ? craft.elements.filter((e) => e.found).map((e) => e.key) : [],
      time_seconds: Math.round(spent.get(t.id) ?? 0),
    };
  });
  const execution: ReportExecution = anyRan ? 'executed' : attempts.length > 0 ? 'unavailable' : 'not_attempted';
  const tasksPassed = anyRan ? taskReports.filter((t) => t.passed).length : null;
  const sum = (pick: (a: PromptAttemptsTable) => number | null) => attempts.reduce((s, a) => s + (pick(a) ?? 0), 0);
  const report: Omit<PromptReport, 'summary'> = {
    outcome, execution,
    overall_score: anyRan ? round1(mean(taskReports.map((t) => t.score ?? 0))) : null,
    craft_score: round1(mean(taskReports.map((t) => t.craft_score))),
    tasks_passed: tasksPassed, tasks_total: tasks.length,
    duration_seconds: startedAt === null ? null : Math.round((endedAt - startedAt) / 1000),
    model: attempts.find(executed)?.model ?? null,
    tokens: { input: sum((a) => a.input_tokens), output: sum((a) => a.output_tokens) },
    proctoring: input.proctoring,
    tasks: taskReports,
  };
  const noModel = attempts.some((a) => a.status === 'graded' && a.execution === 'unavailable');
  return { ...report, summary: describe(report, tasksPassed, noModel) };
}
