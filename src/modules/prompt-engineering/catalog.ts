import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database, PromptEngineeringAssessmentsTable, PromptEngineeringTasksTable } from '../../db/schema.js';
import { prepared } from '../../db/prepared.js';
import { keysetPager, type PageRequest } from '../../platform/pagination.js';
import type { CompiledAssertion } from './assertions.js';
import { assessmentId, caseAssertions, readCatalogFolder, taskId, TaskFileError, type AssessmentFile, type LoadedTask, type StoredCase, type TaskDefinition } from './content.js';
import { patternsOf, slowPatterns } from './patterns.js';
import { createHash } from 'node:crypto';

export interface PromptTask extends Omit<PromptEngineeringTasksTable, 'definition'> {
  definition: TaskDefinition;
  /** Every case with its assertions compiled once, samples first. */
  cases: Array<StoredCase & { kind: 'sample' | 'hidden'; assertions: CompiledAssertion[] }>;
}

export interface PromptAssessment extends Omit<PromptEngineeringAssessmentsTable, 'task_ids'> {
  task_ids: string[];
  tasks: PromptTask[];
}

/**
 * The prompt-engineering catalogue: the shared tasks and assessments (organisation null) and an organisation's
 * own. A task's content changes only with its digest, so parsed and compiled tasks are kept per process by digest.
 */
export function createPromptCatalog(database: Db) {
  const db = database.kysely;
  const tasks = new Map<string, PromptTask>();
  const visible = (organizationId: string) => db.selectFrom('prompt_engineering_assessments').selectAll()
    .where((eb) => eb.or([eb('organization_id', 'is', null), eb('organization_id', '=', organizationId)]));
  const pageOf = keysetPager(database, (organizationId: string) => visible(organizationId));
  const digestOf = prepared(database, (id: string) => db.selectFrom('prompt_engineering_tasks').select(['id', 'digest']).where('id', '=', id));

  function hydrateTask(row: PromptEngineeringTasksTable): PromptTask {
    const definition = JSON.parse(row.definition) as TaskDefinition;
    const compile = (kind: 'sample' | 'hidden') => (c: StoredCase) => ({ ...c, kind, assertions: caseAssertions(definition, c, `${row.slug} ${c.name}`) });
    const task: PromptTask = {
      ...row, definition,
      cases: [...definition.sample_cases.map(compile('sample')), ...definition.hidden_cases.map(compile('hidden'))],
    };
    tasks.set(row.id, task);
    return task;
  }

  /** Tasks by id: their digests are read, and the content only of those not kept at that digest. */
  async function tasksById(tx: Kysely<Database>, ids: string[]): Promise<Map<string, PromptTask>> {
    if (ids.length === 0) return new Map();
    return tasksAt(tx, await tx.selectFrom('prompt_engineering_tasks').select(['id', 'digest']).where('id', 'in', ids).execute());
  }

  /** The tasks at these digests: those kept at the same digest as they are, the others read and compiled. */
  async function tasksAt(tx: Kysely<Database>, digests: ReadonlyArray<{ id: string; digest: string }>): Promise<Map<string, PromptTask>> {
    const found = new Map<string, PromptTask>();
    const stale: string[] = [];
    for (const d of digests) {
      const kept = tasks.get(d.id);
      if (kept?.digest === d.digest) found.set(d.id, kept);
      else stale.push(d.id);
    }
    if (stale.length > 0) {
      for (const row of await tx.selectFrom('prompt_engineering_tasks').selectAll().where('id', 'in', stale).execute()) found.set(row.id, hydrateTask(row));
    }
    return found;
  }

  /** Assessments with their tasks, the tasks of all of them read at once (a page of assessments: one read, not one each). */
  async function hydrate(tx: Kysely<Database>, rows: PromptEngineeringAssessmentsTable[]): Promise<PromptAssessment[]> {
    const idsOf = rows.map((row) => JSON.parse(row.task_ids) as string[]);
    const byId = await tasksById(tx, [...new Set(idsOf.flat())]);
    return rows.map((row, i) => ({
      ...row, task_ids: idsOf[i]!, tasks: idsOf[i]!.map((id) => byId.get(id)).filter((t): t is PromptTask => t !== undefined),
    }));
  }

  return {
    async list(organizationId: string, page: PageRequest) {
      const result = await pageOf(page, organizationId);
      return { ...result, data: await hydrate(db, result.data) };
    },
    async get(tx: Kysely<Database>, organizationId: string, id: string): Promise<PromptAssessment | undefined> {
      const row = await tx.selectFrom('prompt_engineering_assessments').selectAll().where('id', '=', id)
        .where((eb) => eb.or([eb('organization_id', 'is', null), eb('organization_id', '=', organizationId)])).executeTakeFirst();
      return row ? (await hydrate(tx, [row]))[0] : undefined;
    },
    /** One task as committed now (its digest read through the read cache: a grader asks for the same few tasks). */
    task: async (id: string): Promise<PromptTask | undefined> => (await tasksAt(db, await digestOf(id))).get(id),
  };
}

export type PromptCatalog = ReturnType<typeof createPromptCatalog>;

/**
 * Writes a catalogue folder's tasks and assessments under an owner (null: the shared catalogue), changing only
 * what differs by digest. Ids derive from owner and slug, so attempts keep pointing at their task.
 */
async function saveCatalog(db: Kysely<Database>, owner: string | null, content: { tasks: LoadedTask[]; assessments: AssessmentFile[] }, now: number) {
  let written = 0;
  await db.transaction().execute(async (tx) => {
    for (const t of content.tasks) {
      const id = taskId(owner, t.file.slug);
      const existing = await tx.selectFrom('prompt_engineering_tasks').select(['digest', 'organization_id']).where('id', '=', id).executeTakeFirst();
      if (existing?.digest === t.digest) continue;
      const values = {
        slug: t.file.slug, title: t.file.title, skill: t.file.skill, difficulty: t.file.difficulty, brief: t.brief,
        definition: JSON.stringify(t.definition), digest: t.digest, updated_at: now,
      };
      if (existing) await tx.updateTable('prompt_engineering_tasks').set(values).where('id', '=', id).execute();
      else await tx.insertInto('prompt_engineering_tasks').values({ id, organization_id: owner, created_at: now, ...values }).execute();
      written++;
    }
    for (const a of content.assessments) {
      const id = assessmentId(owner, a.slug);
      const taskIds = a.tasks.map((slug) => taskId(owner, slug));
      const digest = createHash('sha256').update(JSON.stringify([a.name, a.description, a.duration_minutes, taskIds])).digest('hex');
      const existing = await tx.selectFrom('prompt_engineering_assessments').select('digest').where('id', '=', id).executeTakeFirst();
      if (existing?.digest === digest) continue;
      const values = { slug: a.slug, name: a.name, description: a.description, duration_minutes: a.duration_minutes, task_ids: JSON.stringify(taskIds), digest, updated_at: now };
      if (existing) await tx.updateTable('prompt_engineering_assessments').set(values).where('id', '=', id).execute();
      else await tx.insertInto('prompt_engineering_assessments').values({ id, organization_id: owner, created_at: now, ...values }).execute();
      written++;
    }
  });
  return written;
}

/** The shared catalogue of catalog/prompt-engineering/, written where it changed. */
export async function loadPromptCatalogue(db: Kysely<Database>, now = Date.now()): Promise<number> {
  return saveCatalog(db, null, readCatalogFolder(), now);
}

/**
 * An organisation's own tasks and assessments, from a folder in the catalogue's format. Its regular expressions are
 * tried on hostile outputs first (the shared catalogue's are, in its tests): one that backtracks is refused.
 */
export async function addOrganizationPromptCatalog(db: Kysely<Database>, organizationId: string, dir: string, now = Date.now()) {
  const content = readCatalogFolder(dir);
  const slow = await slowPatterns(patternsOf(content.tasks));
  if (slow.length > 0) throw new TaskFileError(`regular expressions that backtrack on long outputs (a candidate could stall grading with them): ${slow.join('; ')}`);
  await saveCatalog(db, organizationId, content, now);
  return { tasks: content.tasks.length, assessments: content.assessments.map((a) => assessmentId(organizationId, a.slug)) };
}
