import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { applyNegation, CHECKER_VALUE_FILE, type CompiledAssertion } from '../../src/modules/prompt-engineering/assertions.js';
import { caseAssertions, readCatalogFolder, type CaseFile, type LoadedTask } from '../../src/modules/prompt-engineering/content.js';
import { missingVariables } from '../../src/modules/prompt-engineering/template.js';
import { hiddenScore, tally } from '../../src/modules/prompt-engineering/points.js';

/** Runs a checker program with python3 directly (the catalogue's own, trusted code; the grader uses the sandbox). */
function runChecker(source: string, output: string, value: unknown) {
  const dir = mkdtempSync(path.join(tmpdir(), 'prep-checker-'));
  writeFileSync(path.join(dir, 'check.py'), source);
  if (value !== undefined) writeFileSync(path.join(dir, CHECKER_VALUE_FILE), JSON.stringify(value));
  const r = spawnSync('python3', ['check.py'], { cwd: dir, input: output, encoding: 'utf8', timeout: 10_000 });
  rmSync(dir, { recursive: true, force: true });
  const lines = (r.stdout ?? '').split('\n').map((l) => l.trim()).filter(Boolean);
  return { passed: r.status === 0, reason: lines.at(-1) ?? (r.stderr ?? '').trim().split('\n').at(-1) ?? '' };
}

function verdictOf(task: LoadedTask, a: CompiledAssertion, output: string) {
  const v = a.kind === 'local' ? a.check(output) : a.kind === 'sandbox' ? runChecker(task.definition.checkers[a.program]!, output, a.value) : null;
  return v === null ? null : { type: a.type, ...applyNegation(a, v) };
}

function verdicts(task: LoadedTask, assertions: CompiledAssertion[], output: string) {
  return assertions.flatMap((a) => verdictOf(task, a, output) ?? []);
}

/**
 * The hidden score `outputFor` would get, as grading computes it; rubric assertions are given to it (a model's
 * judgement must not be what keeps a wrong answer below the threshold).
 */
function hiddenScoreOf(task: LoadedTask, outputFor: (caseIndex: number) => string): number {
  const cases = task.definition.hidden_cases.map((c, i) => {
    const outcomes = caseAssertions(task.definition, c, `${task.file.slug} ${c.name}`)
      .map((a) => ({ weight: a.weight, reason: '', ...(verdictOf(task, a, outputFor(i)) ?? { type: a.type, passed: true }) }));
    const t = tally(outcomes);
    return { kind: 'hidden' as const, points: t.points, points_possible: t.possible, passed: t.passed };
  });
  return hiddenScore(cases).score;
}

/**
 * Problems in the catalogue's content: every reference output must pass each of its case's deterministic
 * assertions and every failing output fail at least one; the reference prompt uses every variable.
 */
export function catalogueProblems(dir?: string): { problems: string[]; tasks: LoadedTask[]; assessments: ReturnType<typeof readCatalogFolder>['assessments'] } {
  const { tasks, assessments } = readCatalogFolder(dir);
  const problems: string[] = [];
  for (const task of tasks) {
    const slug = task.file.slug;
    const missing = missingVariables(task.file.reference_prompt, task.file.variables);
    if (missing.length) problems.push(`${slug}: reference_prompt leaves out ${missing.join(', ')}`);
    const files: CaseFile[] = [...task.file.sample_cases, ...task.file.hidden_cases];
    const stored = [...task.definition.sample_cases, ...task.definition.hidden_cases];
    stored.forEach((c, i) => {
      const assertions = caseAssertions(task.definition, c, `${slug} ${c.name}`);
      const good = verdicts(task, assertions, files[i]!.reference_output).filter((v) => !v.passed);
      for (const v of good) problems.push(`${slug} ${c.name}: reference_output fails ${v.type}: ${v.reason}`);
      const bad = verdicts(task, assertions, files[i]!.failing_output);
      if (bad.every((v) => v.passed)) problems.push(`${slug} ${c.name}: failing_output passes every assertion`);
    });
    // The task must not pass on the typical mistakes, nor on one answer given to every case (a refusal, a fixed
    // label, another case's right answer, nothing): the score has to come from doing the task.
    const threshold = task.definition.pass_threshold;
    const hiddenFiles = task.file.hidden_cases;
    const failing = hiddenScoreOf(task, (i) => hiddenFiles[i]!.failing_output);
    if (failing >= threshold) problems.push(`${slug}: the failing outputs score ${failing}, at or above the pass threshold ${threshold}`);
    for (const constant of [...new Set([...hiddenFiles.map((f) => f.reference_output), '', "I don't know."])]) {
      const score = hiddenScoreOf(task, () => constant);
      if (score >= threshold) problems.push(`${slug}: answering ${JSON.stringify(constant.slice(0, 60))} to every case scores ${score}, at or above the pass threshold ${threshold}`);
    }
  }
  return { problems, tasks, assessments };
}
