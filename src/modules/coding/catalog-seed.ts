import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { Kysely } from 'kysely';
import { isComparator } from '../../sandbox/compare.js';
import { newId } from '../../platform/ids.js';

const ROOT = new URL('../../../catalog/coding/', import.meta.url);

export interface HiddenCase {
  name: string;
  input: string;
  output: string;
  /** Sized so that an answer slower than the expected complexity runs out of time. */
  large: boolean;
}

export interface ProblemFile {
  slug: string; title: string; difficulty: 'easy' | 'medium' | 'hard'; skills: string[]; statement: string;
  input_format: string; output_format: string; constraints: string;
  examples: Array<{ input: string; output: string; explanation?: string }>;
  expected_complexity: string; comparator: string; time_limit_ms: number; memory_limit_mb: number;
}

export interface ProblemFolder {
  dir: URL;
  problem: ProblemFile;
  cases: HiddenCase[];
  /** language id → source */
  solutions: Record<string, string>;
  /** A correct but deliberately slow solution (Python), when the problem has one. */
  quadratic: string | null;
}

export interface TestFile {
  slug: string; name: string; description: string; difficulty: 'easy' | 'medium' | 'hard'; skills: string[];
  duration_minutes: number | null; attempts_per_problem?: number; slots: Array<{ title: string; problems: string[] }>;
}

// A Map: an organisation's folder may hold `reference.constructor`, which must name no language.
const SOLUTION_LANGUAGES = new Map([['py', 'python'], ['cpp', 'cpp'], ['c', 'c'], ['java', 'java'], ['js', 'javascript'], ['ts', 'typescript']]);

function readJson<T>(url: URL): T {
  return JSON.parse(readFileSync(url, 'utf8')) as T;
}

/** One problem folder (see catalog/coding/AUTHORING.md). */
export function readProblemFolder(dir: URL): ProblemFolder {
  const problem = readJson<ProblemFile>(new URL('problem.json', dir));
  const casesDir = new URL('cases/', dir);
  const names = existsSync(casesDir) ? readdirSync(casesDir).filter((f) => f.endsWith('.in')).map((f) => f.slice(0, -3)) : [];
  names.sort((a, b) => Number(a.startsWith('large-')) - Number(b.startsWith('large-')) || a.localeCompare(b, 'en', { numeric: true }));
  const cases = names.map((name) => ({
    name, large: name.startsWith('large-'),
    input: readFileSync(new URL(`${name}.in`, casesDir), 'utf8'), output: readFileSync(new URL(`${name}.out`, casesDir), 'utf8'),
  }));
  const solutions: Record<string, string> = {};
  const solutionsDir = new URL('solutions/', dir);
  let quadratic: string | null = null;
  if (existsSync(solutionsDir)) {
    for (const file of readdirSync(solutionsDir)) {
      const [base, ext] = file.split('.') as [string, string];
      const language = base === 'reference' ? SOLUTION_LANGUAGES.get(ext) : undefined;
      if (language) solutions[language] = readFileSync(new URL(file, solutionsDir), 'utf8');
      if (base === 'quadratic' && ext === 'py') quadratic = readFileSync(new URL(file, solutionsDir), 'utf8');
    }
  }
  return { dir, problem, cases, solutions, quadratic };
}

export function readProblemFolders(): ProblemFolder[] {
  const dir = new URL('problems/', ROOT);
  if (!existsSync(dir)) return [];
  // A folder without problem.json is a problem still being written: skipped (the catalogue test flags it).
  return readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory() && existsSync(new URL(`${d.name}/problem.json`, dir)))
    .sort((a, b) => a.name.localeCompare(b.name)).map((d) => readProblemFolder(new URL(`${d.name}/`, dir)));
}

export function readTestFiles(): TestFile[] {
  const dir = new URL('tests/', ROOT);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => readJson<TestFile>(new URL(f, dir)));
}

/** The columns of a problem as stored, from its folder. */
export function problemColumns(folder: ProblemFolder) {
  const p = folder.problem;
  return {
    title: p.title, difficulty: p.difficulty, skills: JSON.stringify(p.skills), statement: p.statement,
    input_format: p.input_format, output_format: p.output_format, constraints: p.constraints,
    examples: JSON.stringify(p.examples), hidden_cases: JSON.stringify(folder.cases),
    reference_solutions: Object.keys(folder.solutions).length > 0 ? JSON.stringify(folder.solutions) : null,
    expected_complexity: p.expected_complexity, comparator: p.comparator,
    time_limit_ms: p.time_limit_ms, memory_limit_mb: p.memory_limit_mb,
  };
}

/**
 * The shared coding catalogue from catalog/coding: problems and tests are inserted or refreshed by slug (the
 * catalogue owns them; sessions keep their drawn problems, which are never deleted). A test's slots are
 * rebuilt from its file.
 */
export async function seedCodingCatalogue(db: Kysely<any>, now = Date.now()): Promise<number> {
  let changed = 0;
  const problemIds = new Map<string, string>(
    (await db.selectFrom('coding_problems').select(['id', 'slug']).where('organization_id', 'is', null).execute())
      .map((r: { id: string; slug: string }) => [r.slug, r.id]),
  );
  for (const folder of readProblemFolders()) {
    const content = problemColumns(folder);
    const existing = problemIds.get(folder.problem.slug);
    if (existing) {
      await db.updateTable('coding_problems').set(content).where('id', '=', existing).execute();
      await db.deleteFrom('coding_reference_timings').where('problem_id', '=', existing).execute();
    } else {
      const id = newId();
      await db.insertInto('coding_problems').values({ id, organization_id: null, slug: folder.problem.slug, created_at: now, ...content }).execute();
      problemIds.set(folder.problem.slug, id);
    }
    changed++;
  }

  const tests = new Map<string, string>(
    (await db.selectFrom('coding_tests').select(['id', 'slug']).where('organization_id', 'is', null).execute())
      .map((r: { id: string; slug: string }) => [r.slug, r.id]),
  );
  for (const t of readTestFiles()) {
    const content = {
      name: t.name, description: t.description, difficulty: t.difficulty, skills: JSON.stringify(t.skills),
      duration_minutes: t.duration_minutes, attempts_per_problem: t.attempts_per_problem ?? 10,
    };
    let testId = tests.get(t.slug);
    if (testId) {
      await db.updateTable('coding_tests').set(content).where('id', '=', testId).execute();
      await db.deleteFrom('coding_test_slots').where('test_id', '=', testId).execute();
    } else {
      testId = newId();
      await db.insertInto('coding_tests').values({ id: testId, organization_id: null, slug: t.slug, created_at: now, ...content }).execute();
    }
    await insertSlots(db, testId, t.slots.map((slot) => ({
      title: slot.title,
      problemIds: slot.problems.map((slug) => {
        const id = problemIds.get(slug);
        if (!id) throw new Error(`coding test ${t.slug} names unknown problem ${slug}`);
        return id;
      }),
    })));
    changed++;
  }
  return changed;
}

export async function insertSlots(db: Kysely<any>, testId: string, slots: Array<{ title: string; problemIds: string[] }>): Promise<void> {
  for (const [position, slot] of slots.entries()) {
    const slotId = newId();
    await db.insertInto('coding_test_slots').values({ id: slotId, test_id: testId, position, title: slot.title }).execute();
    for (const [i, problemId] of slot.problemIds.entries()) {
      await db.insertInto('coding_slot_problems').values({ slot_id: slotId, problem_id: problemId, position: i }).execute();
    }
  }
}

const SLUG = /^[a-z0-9][a-z0-9-]{0,79}$/;

/** Why a problem folder or test file cannot be loaded, in words for the person running the CLI. */
export class CatalogueFileError extends Error {}

function checkProblem(folder: ProblemFolder): void {
  const p = folder.problem;
  const where = folder.dir.pathname;
  if (typeof p.slug !== 'string' || !SLUG.test(p.slug)) throw new CatalogueFileError(`${where}: slug must be kebab-case`);
  if (!['easy', 'medium', 'hard'].includes(p.difficulty)) throw new CatalogueFileError(`${where}: difficulty must be easy, medium or hard`);
  for (const field of ['title', 'statement', 'input_format', 'output_format', 'constraints', 'expected_complexity', 'comparator'] as const) {
    if (typeof p[field] !== 'string' || p[field].length === 0) throw new CatalogueFileError(`${where}: ${field} is required`);
  }
  if (!isComparator(p.comparator)) throw new CatalogueFileError(`${where}: comparator must be exact, whitespace, unordered_lines or float:<tolerance>`);
  if (!Number.isInteger(p.time_limit_ms) || p.time_limit_ms < 100 || p.time_limit_ms > 20_000) throw new CatalogueFileError(`${where}: time_limit_ms must be 100 to 20000`);
  if (!Number.isInteger(p.memory_limit_mb) || p.memory_limit_mb < 16 || p.memory_limit_mb > 2048) throw new CatalogueFileError(`${where}: memory_limit_mb must be 16 to 2048`);
  if (!Array.isArray(p.examples) || p.examples.length === 0) throw new CatalogueFileError(`${where}: at least one example is required`);
  if (folder.cases.length === 0) throw new CatalogueFileError(`${where}: at least one hidden case (cases/NN.in and NN.out) is required`);
}

/**
 * An organisation's own coding content: problem folders (the catalogue's format) and one test whose slots
 * name problems by slug, the organisation's own first, then the shared catalogue's. All or nothing.
 */
export async function addOrganizationCodingTest(db: Kysely<any>, organizationId: string, testFile: string, problemDirs: string[], now = Date.now()) {
  const folders = problemDirs.map((dir) => {
    const url = pathToFileURL(dir.endsWith('/') ? dir : `${dir}/`);
    if (!existsSync(new URL('problem.json', url))) throw new CatalogueFileError(`${dir}: no problem.json`);
    const folder = readProblemFolder(url);
    checkProblem(folder);
    return folder;
  });
  const test = JSON.parse(readFileSync(testFile, 'utf8')) as TestFile;
  if (typeof test.slug !== 'string' || !SLUG.test(test.slug)) throw new CatalogueFileError(`${testFile}: slug must be kebab-case`);
  if (!Array.isArray(test.slots) || test.slots.length === 0) throw new CatalogueFileError(`${testFile}: at least one slot is required`);
  const attempts = test.attempts_per_problem ?? 10;
  if (!Number.isInteger(attempts) || attempts < 1 || attempts > 100) throw new CatalogueFileError(`${testFile}: attempts_per_problem must be 1 to 100`);

  return db.transaction().execute(async (tx) => {
    const own = new Map<string, string>();
    for (const folder of folders) {
      const existing = await tx.selectFrom('coding_problems').select('id').where('organization_id', '=', organizationId).where('slug', '=', folder.problem.slug).executeTakeFirst();
      if (existing) {
        await tx.updateTable('coding_problems').set(problemColumns(folder)).where('id', '=', existing.id).execute();
        own.set(folder.problem.slug, existing.id);
      } else {
        const id = newId();
        await tx.insertInto('coding_problems').values({ id, organization_id: organizationId, slug: folder.problem.slug, created_at: now, ...problemColumns(folder) }).execute();
        own.set(folder.problem.slug, id);
      }
    }
    const resolve = async (slug: string): Promise<string> => {
      if (own.has(slug)) return own.get(slug)!;
      const row = await tx.selectFrom('coding_problems').select('id').where('slug', '=', slug)
        .where((eb: any) => eb.or([eb('organization_id', '=', organizationId), eb('organization_id', 'is', null)]))
        .orderBy('organization_id').executeTakeFirst();
      if (!row) throw new CatalogueFileError(`${testFile}: no problem '${slug}' in the organisation's problems or the shared catalogue`);
      return row.id;
    };
    const slots = [];
    for (const slot of test.slots) {
      if (!Array.isArray(slot.problems) || slot.problems.length === 0) throw new CatalogueFileError(`${testFile}: slot '${slot.title}' has no problems`);
      slots.push({ title: String(slot.title), problemIds: await Promise.all(slot.problems.map(resolve)) });
    }
    if (await tx.selectFrom('coding_tests').select('id').where('organization_id', '=', organizationId).where('slug', '=', test.slug).executeTakeFirst()) {
      throw new CatalogueFileError(`the organisation already has a test '${test.slug}'`);
    }
    const id = newId();
    await tx.insertInto('coding_tests').values({
      id, organization_id: organizationId, slug: test.slug, name: String(test.name), description: String(test.description ?? ''),
      difficulty: test.difficulty, skills: JSON.stringify(test.skills ?? []), duration_minutes: test.duration_minutes ?? null,
      attempts_per_problem: attempts, created_at: now,
    }).execute();
    await insertSlots(tx, id, slots);
    return { id, problems: own.size };
  });
}
