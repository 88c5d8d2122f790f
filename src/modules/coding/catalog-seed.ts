import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { Kysely } from 'kysely';
import { newId } from '../../platform/ids.js';

const ROOT = new URL('../../../catalog/coding/', import.meta.url);

interface ProblemFile {
  slug: string; title: string; difficulty: 'easy' | 'medium' | 'hard'; skills: string[]; statement: string;
  input_format: string; output_format: string; constraints: string;
  examples: Array<{ input: string; output: string; explanation?: string }>;
  hidden_cases: Array<{ input: string; output: string }>;
  expected_complexity: string; comparator: string; time_limit_ms: number; memory_limit_mb: number;
}

interface TestFile {
  slug: string; name: string; description: string; difficulty: 'easy' | 'medium' | 'hard'; skills: string[];
  duration_minutes: number | null; slots: Array<{ title: string; problems: string[] }>;
}

function readJson<T>(url: URL): T {
  return JSON.parse(readFileSync(url, 'utf8')) as T;
}

export function readProblemFiles(): ProblemFile[] {
  const dir = new URL('problems/', ROOT);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))
    .map((d) => readJson<ProblemFile>(new URL(`${d.name}/problem.json`, dir)));
}

export function readTestFiles(): TestFile[] {
  const dir = new URL('tests/', ROOT);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => readJson<TestFile>(new URL(f, dir)));
}

/**
 * The shared coding catalogue from catalog/coding: problems are inserted or refreshed by slug (so a problem
 * gains hidden cases when its file does); tests and their slots are inserted once.
 */
export async function seedCodingCatalogue(db: Kysely<any>, now = Date.now()): Promise<number> {
  let changed = 0;
  const problemIds = new Map<string, string>(
    (await db.selectFrom('coding_problems').select(['id', 'slug']).where('organization_id', 'is', null).execute())
      .map((r: { id: string; slug: string }) => [r.slug, r.id]),
  );
  for (const p of readProblemFiles()) {
    const content = {
      title: p.title, difficulty: p.difficulty, skills: JSON.stringify(p.skills), statement: p.statement,
      input_format: p.input_format, output_format: p.output_format, constraints: p.constraints,
      examples: JSON.stringify(p.examples), hidden_cases: JSON.stringify(p.hidden_cases),
      expected_complexity: p.expected_complexity, comparator: p.comparator,
      time_limit_ms: p.time_limit_ms, memory_limit_mb: p.memory_limit_mb,
    };
    const existing = problemIds.get(p.slug);
    if (existing) {
      await db.updateTable('coding_problems').set(content).where('id', '=', existing).execute();
    } else {
      const id = newId();
      await db.insertInto('coding_problems').values({ id, organization_id: null, slug: p.slug, created_at: now, ...content }).execute();
      problemIds.set(p.slug, id);
    }
    changed++;
  }

  const tests = new Set((await db.selectFrom('coding_tests').select('slug').where('organization_id', 'is', null).execute()).map((r: { slug: string }) => r.slug));
  for (const t of readTestFiles()) {
    if (tests.has(t.slug)) continue;
    const testId = newId();
    await db.insertInto('coding_tests').values({
      id: testId, organization_id: null, slug: t.slug, name: t.name, description: t.description, difficulty: t.difficulty,
      skills: JSON.stringify(t.skills), duration_minutes: t.duration_minutes, created_at: now,
    }).execute();
    for (const [position, slot] of t.slots.entries()) {
      const slotId = newId();
      await db.insertInto('coding_test_slots').values({ id: slotId, test_id: testId, position, title: slot.title }).execute();
      for (const [i, slug] of slot.problems.entries()) {
        const problemId = problemIds.get(slug);
        if (!problemId) throw new Error(`coding test ${t.slug} names unknown problem ${slug}`);
        await db.insertInto('coding_slot_problems').values({ slot_id: slotId, problem_id: problemId, position: i }).execute();
      }
    }
    changed++;
  }
  return changed;
}
