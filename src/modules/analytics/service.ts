import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../../db/schema.js';
import { livemodeFlag, type Tenant } from '../../platform/context.js';
import { statusAsReadSql } from '../assessments/lifecycle.js';
import { INTERVIEW_STATUSES, interviewStatusAsReadSql } from '../interviews/states.js';

export interface TimeRange {
  since: number | null;
  until: number | null;
}

/**
 * One assessment type's counts: a table, the column holding its stage, and the stages it reports
 * (listed so a stage with no rows still shows as 0). Each module that adds an assessment type adds a source.
 */
export interface ActivitySource {
  type: string;
  table: keyof Database;
  /**
   * Column holding the stage (or an expression over the row, or one made for the time of the count), or null when
   * every row is in the single stage `stages[0]`.
   */
  stageColumn: string | RawBuilder<string> | ((now: number) => RawBuilder<string>) | null;
  stages: string[];
}

/** The stages of the assessment-session lifecycle coding, prompt-engineering and psychometric sessions share. */
const SESSION_STAGES = ['assigned', 'started', 'in_progress', 'completed', 'timed_out', 'cancelled'];
/**
 * A session's stage is the status a read of it shows: one whose time is up counts as timed_out before the sweep
 * writes it. Coding and prompt-engineering sessions can be finalized (finalize_requested_at); psychometric ones cannot.
 */
const sessionStage = (finalizable: boolean) => (now: number) => statusAsReadSql(now, finalizable);

export const activitySources: ActivitySource[] = [
  { type: 'candidates', table: 'candidates', stageColumn: null, stages: ['created'] },
  { type: 'coding', table: 'coding_sessions', stageColumn: sessionStage(true), stages: SESSION_STAGES },
  { type: 'interview', table: 'interviews', stageColumn: interviewStatusAsReadSql, stages: INTERVIEW_STATUSES },
  { type: 'prompt_engineering', table: 'prompt_engineering_sessions', stageColumn: sessionStage(true), stages: SESSION_STAGES },
  { type: 'psychometric', table: 'psychometric_sessions', stageColumn: sessionStage(false), stages: SESSION_STAGES },
  {
    type: 'resume', table: 'resumes', stageColumn: sql<string>`case when score_id is null then 'parsed' else 'scored' end`,
    stages: ['parsed', 'scored'],
  },
];

/** Counts per source and stage, one query per source; `now` is the time stages that change with it are taken at. */
export async function countActivity(db: Kysely<Database>, tenant: Tenant, range: TimeRange, sources: ActivitySource[], now: number) {
  return Promise.all(sources.map(async (source) => {
    const stages: Record<string, number> = Object.fromEntries(source.stages.map((s) => [s, 0]));
    const column = source.stageColumn;
    const stageExpr = typeof column === 'string' ? sql.ref<string>(column) : typeof column === 'function' ? column(now) : column;
    let q = (db as Kysely<any>).selectFrom(source.table)
      .where('organization_id', '=', tenant.organizationId)
      .where('livemode', '=', livemodeFlag(tenant));
    if (range.since !== null) q = q.where('created_at', '>=', range.since);
    if (range.until !== null) q = q.where('created_at', '<', range.until);
    const rows = (stageExpr
      // Grouped by the selected stage's position: an expression with parameters repeated in GROUP BY is, to
      // PostgreSQL, another expression (its own $n), which the select list may not use ungrouped.
      ? await q.select([stageExpr.as('stage'), (eb: any) => eb.fn.countAll().as('n')]).groupBy(sql`1`).execute()
      : (await q.select([(eb: any) => eb.fn.countAll().as('n')]).execute()).map((x: any) => ({ stage: source.stages[0], n: x.n }))
    ) as Array<{ stage: string | null; n: number | string }>;
    let total = 0;
    for (const row of rows) {
      const n = Number(row.n);
      total += n;
      const stage = row.stage ?? 'unknown';
      stages[stage] = (stages[stage] ?? 0) + n;
    }
    return { type: source.type, total, stages };
  }));
}
