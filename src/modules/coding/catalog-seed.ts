import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { Kysely } from 'kysely';
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

const SOLUTION_LANGUAGES: Record<string, string> = { py: 'python', cpp: 'cpp', c: 'c', java: 'java', js: 'javascript', ts: 'typescript' };

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
      if (base === 'reference' && SOLUTION_LANGUAGES[ext]) solutions[SOLUTION_LANGUAGES[ext]!] = readFileSync(new URL(file, solutionsDir), 'utf8');
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
