import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { v5 as uuidv5 } from 'uuid';
import { AssertionError, compileAssertion, type Assertion, type CompiledAssertion } from './assertions.js';
import { VARIABLE_NAME } from './template.js';

/** The prompt-engineering catalogue's file format (catalog/prompt-engineering/AUTHORING.md) and its rules. */

export const SKILLS = ['extraction', 'classification', 'summarisation', 'rewriting', 'code-generation', 'few-shot', 'injection-defence', 'scope-control'] as const;
export type Skill = (typeof SKILLS)[number];
export const DIFFICULTIES = ['easy', 'medium', 'hard'] as const;
export type Difficulty = (typeof DIFFICULTIES)[number];

export const DEFAULT_ATTEMPT_BUDGET = 5;
/** Attempts the grader could not grade are free, up to this many per task; past them they count too, since a prompt can provoke them. */
export const FREE_ERRORS_PER_TASK = 2;

/** Attempts that use up a task's budget: all but the first FREE_ERRORS_PER_TASK the grader could not grade. */
export function attemptsUsed(counts: { counted: number; errors: number }): number {
  return counts.counted + Math.max(0, counts.errors - FREE_ERRORS_PER_TASK);
}

/** The same, from the attempts' statuses. */
export const attemptsUsedOf = (statuses: string[]) => attemptsUsed({
  counted: statuses.filter((s) => s !== 'error').length, errors: statuses.filter((s) => s === 'error').length,
});
export const DEFAULT_PASS_THRESHOLD = 70;
export const DEFAULT_MAX_OUTPUT_TOKENS = 512;
const VAR_VALUE_MAX = 8_000;
const CHECKER_MAX = 64 * 1024;

export interface CaseFile {
  name: string;
  vars: Record<string, string>;
  assert?: Assertion[];
  reference_output: string;
  failing_output: string;
}

export interface TaskFile {
  slug: string;
  title: string;
  skill: Skill;
  difficulty: Difficulty;
  variables: string[];
  pass_threshold?: number;
  attempt_budget?: number;
  max_output_tokens?: number;
  assert?: Assertion[];
  sample_cases: CaseFile[];
  hidden_cases: CaseFile[];
  reference_prompt: string;
}

export interface AssessmentFile {
  slug: string;
  name: string;
  description: string;
  duration_minutes: number;
  tasks: string[];
}

/** A case as stored: what grading needs (never the authoring outputs). */
export interface StoredCase {
  name: string;
  vars: Record<string, string>;
  assert: Assertion[];
}

/** What a stored task's `definition` column holds. */
export interface TaskDefinition {
  variables: string[];
  pass_threshold: number;
  attempt_budget: number;
  max_output_tokens: number;
  sample_cases: StoredCase[];
  hidden_cases: StoredCase[];
  /** The sandbox assertions' programs, by path under the task's checkers/. */
  checkers: Record<string, string>;
}

export interface LoadedTask {
  file: TaskFile;
  brief: string;
  definition: TaskDefinition;
  /** A digest of everything stored, so a reload writes only what changed. */
  digest: string;
}

export class TaskFileError extends Error {}

const NAMESPACE = 'a3e3d6c1-4f0e-4e55-9a57-7f1c0c2f8e42';
/** Ids derive from owner and slug, so reloading the catalogue keeps every id (and attempts keep their task). */
export const taskId = (owner: string | null, slug: string) => uuidv5(`${owner ?? 'prep'}:task:${slug}`, NAMESPACE);
export const assessmentId = (owner: string | null, slug: string) => uuidv5(`${owner ?? 'prep'}:assessment:${slug}`, NAMESPACE);

export const catalogDir = () => fileURLToPath(new URL('../../../catalog/prompt-engineering/', import.meta.url));

const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const CASE_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

function fail(where: string, message: string): never {
  throw new TaskFileError(`${where}: ${message}`);
}

function intIn(v: unknown, min: number, max: number, where: string, field: string): number {
  if (!Number.isInteger(v) || (v as number) < min || (v as number) > max) fail(where, `${field} is a whole number from ${min} to ${max}`);
  return v as number;
}

/** Every case's assertions, compiled (the task's own first, then the case's). */
export function caseAssertions(definition: Pick<TaskDefinition, 'checkers'>, c: StoredCase, where = 'case'): CompiledAssertion[] {
  return c.assert.map((a, i) => compileAssertion(a, `${where} assert[${i}]`, definition.checkers));
}

function validateCase(c: CaseFile, task: TaskFile, where: string, checkers: Record<string, string>): StoredCase {
  if (typeof c !== 'object' || c === null) fail(where, 'a case is an object');
  if (typeof c.name !== 'string' || !CASE_NAME.test(c.name)) fail(where, 'name is lower-case words joined by -');
  if (typeof c.vars !== 'object' || c.vars === null) fail(where, 'vars is an object');
  const names = Object.keys(c.vars);
  const extra = names.filter((n) => !task.variables.includes(n));
  const missing = task.variables.filter((n) => !names.includes(n));
  if (extra.length || missing.length) fail(where, `vars must give exactly ${task.variables.join(', ')}${missing.length ? ` (missing ${missing.join(', ')})` : ''}${extra.length ? ` (unknown ${extra.join(', ')})` : ''}`);
  for (const [n, v] of Object.entries(c.vars)) {
    if (typeof v !== 'string' || v.length === 0 || v.length > VAR_VALUE_MAX) fail(where, `vars.${n} is a string of 1–${VAR_VALUE_MAX} characters`);
  }
  if (typeof c.reference_output !== 'string' || typeof c.failing_output !== 'string') fail(where, 'reference_output and failing_output are strings');
  if (c.assert !== undefined && !Array.isArray(c.assert)) fail(where, 'assert is a list of assertions');
  const assert = [...(task.assert ?? []), ...(c.assert ?? [])];
  if (assert.length === 0) fail(where, 'a case needs at least one assertion (its own or the task\'s)');
  try {
    assert.forEach((a, i) => compileAssertion(a, `${where} assert[${i}]`, checkers));
  } catch (error) {
    if (error instanceof AssertionError) fail(where, error.message);
    throw error;
  }
  if (assert.every((a) => a.type === 'rubric' || a.type === 'not-rubric')) fail(where, 'a case cannot rest on rubric assertions alone (without a model nothing could check it)');
  return { name: c.name, vars: c.vars, assert };
}

/** Validates one task (its file, brief and checkers) and returns what is stored. */
export function validateTask(file: TaskFile, brief: string, checkers: Record<string, string>, where: string): LoadedTask {
  if (typeof file !== 'object' || file === null) fail(where, 'task.json holds an object');
  if (typeof file.slug !== 'string' || !SLUG.test(file.slug) || file.slug.length > 64) fail(where, 'slug is lower-case words joined by -');
  if (typeof file.title !== 'string' || file.title.length < 3 || file.title.length > 80) fail(where, 'title has 3–80 characters');
  if (!SKILLS.includes(file.skill)) fail(where, `skill is one of ${SKILLS.join(', ')}`);
  if (!DIFFICULTIES.includes(file.difficulty)) fail(where, `difficulty is one of ${DIFFICULTIES.join(', ')}`);
  if (!Array.isArray(file.variables) || file.variables.length === 0 || file.variables.length > 8
    || !file.variables.every((v) => typeof v === 'string' && VARIABLE_NAME.test(v)) || new Set(file.variables).size !== file.variables.length) {
    fail(where, 'variables is a list of 1–8 distinct names like input or customer_email');
  }
  const passThreshold = file.pass_threshold === undefined ? DEFAULT_PASS_THRESHOLD : intIn(file.pass_threshold, 0, 100, where, 'pass_threshold');
  const attemptBudget = file.attempt_budget === undefined ? DEFAULT_ATTEMPT_BUDGET : intIn(file.attempt_budget, 1, 20, where, 'attempt_budget');
  const maxOutputTokens = file.max_output_tokens === undefined ? DEFAULT_MAX_OUTPUT_TOKENS : intIn(file.max_output_tokens, 16, 2048, where, 'max_output_tokens');
  if (!Array.isArray(file.sample_cases) || file.sample_cases.length < 1 || file.sample_cases.length > 5) fail(where, 'sample_cases has 1–5 cases');
  if (!Array.isArray(file.hidden_cases) || file.hidden_cases.length < 1 || file.hidden_cases.length > 12) fail(where, 'hidden_cases has 1–12 cases');
  if (typeof file.reference_prompt !== 'string' || file.reference_prompt.length === 0) fail(where, 'reference_prompt is a string');
  if (file.assert !== undefined && !Array.isArray(file.assert)) fail(where, 'assert is a list of assertions');
  if (typeof brief !== 'string' || brief.trim().length === 0) fail(where, 'brief.md is missing or empty');
  const sample = file.sample_cases.map((c, i) => validateCase(c, file, `${where} sample_cases[${i}]`, checkers));
  const hidden = file.hidden_cases.map((c, i) => validateCase(c, file, `${where} hidden_cases[${i}]`, checkers));
  const names = [...sample, ...hidden].map((c) => c.name);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) fail(where, `case name ${dup} is used twice`);
  const definition: TaskDefinition = {
    variables: file.variables, pass_threshold: passThreshold, attempt_budget: attemptBudget, max_output_tokens: maxOutputTokens,
    sample_cases: sample, hidden_cases: hidden, checkers,
  };
  const digest = createHash('sha256').update(JSON.stringify([file.title, file.skill, file.difficulty, brief, definition])).digest('hex');
  return { file, brief, definition, digest };
}

export function validateAssessment(a: AssessmentFile, tasks: ReadonlySet<string>, where: string): AssessmentFile {
  if (typeof a !== 'object' || a === null) fail(where, 'an assessment is an object');
  if (typeof a.slug !== 'string' || !SLUG.test(a.slug) || a.slug.length > 64) fail(where, 'slug is lower-case words joined by -');
  if (typeof a.name !== 'string' || a.name.length < 3 || a.name.length > 100) fail(where, 'name has 3–100 characters');
  if (typeof a.description !== 'string' || a.description.length === 0 || a.description.length > 2000) fail(where, 'description has 1–2000 characters');
  intIn(a.duration_minutes, 5, 240, where, 'duration_minutes');
  if (!Array.isArray(a.tasks) || a.tasks.length < 1 || a.tasks.length > 10) fail(where, 'tasks lists 1–10 task slugs');
  const unknown = a.tasks.filter((t) => !tasks.has(t));
  if (unknown.length) fail(where, `unknown task(s) ${unknown.join(', ')}`);
  if (new Set(a.tasks).size !== a.tasks.length) fail(where, 'a task is listed twice');
  return a;
}

function readJson<T>(file: string): T {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch (error) {
    throw new TaskFileError(`${file}: ${(error as Error).message}`);
  }
}

/** One task folder: task.json, brief.md and checkers/*. */
export function readTaskFolder(dir: string): LoadedTask {
  const where = path.basename(dir);
  const file = readJson<TaskFile>(path.join(dir, 'task.json'));
  const briefPath = path.join(dir, 'brief.md');
  const brief = existsSync(briefPath) ? readFileSync(briefPath, 'utf8') : '';
  const checkers: Record<string, string> = {};
  const checkersDir = path.join(dir, 'checkers');
  if (existsSync(checkersDir)) {
    for (const name of readdirSync(checkersDir).sort()) {
      const full = path.join(checkersDir, name);
      if (!statSync(full).isFile() || !name.endsWith('.py')) continue;
      const source = readFileSync(full, 'utf8');
      if (source.length > CHECKER_MAX) fail(where, `checkers/${name} is over ${CHECKER_MAX} bytes`);
      checkers[`checkers/${name}`] = source;
    }
  }
  const loaded = validateTask(file, brief, checkers, where);
  if (file.slug !== where) fail(where, `the folder is named after the slug (${file.slug})`);
  return loaded;
}

/** A whole catalogue folder: every task under tasks/ and assessments.json. */
export function readCatalogFolder(dir = catalogDir()): { tasks: LoadedTask[]; assessments: AssessmentFile[] } {
  const tasksDir = path.join(dir, 'tasks');
  const tasks = existsSync(tasksDir)
    ? readdirSync(tasksDir).sort().filter((n) => statSync(path.join(tasksDir, n)).isDirectory()).map((n) => readTaskFolder(path.join(tasksDir, n)))
    : [];
  const slugs = new Set(tasks.map((t) => t.file.slug));
  const list = readJson<AssessmentFile[]>(path.join(dir, 'assessments.json'));
  if (!Array.isArray(list)) throw new TaskFileError('assessments.json holds a list');
  const assessments = list.map((a, i) => validateAssessment(a, slugs, `assessments.json[${i}]`));
  const dup = assessments.map((a) => a.slug).find((s, i, all) => all.indexOf(s) !== i);
  if (dup) throw new TaskFileError(`assessments.json: slug ${dup} is used twice`);
  return { tasks, assessments };
}
