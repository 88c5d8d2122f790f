import { PostgresAdapter, sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Db } from '../../db/database.js';
import { prepared } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';
import { livemodeFlag, type Tenant } from '../../platform/context.js';
import { askedByProblem, judgedByProblem } from './activity.js';
import { ftsQuery, parseSearch, tsQueryText } from './search.js';
import { BUCKETS, difficultyRank, type Bucket, type Difficulty } from './content.js';

const BUCKET_DAYS: Record<Bucket, number | null> = { '30d': 30, '90d': 90, '180d': 180, all: null };
export const since = (bucket: Bucket, now: number) => (BUCKET_DAYS[bucket] === null ? 0 : now - BUCKET_DAYS[bucket]! * 86_400_000);

export interface ListFilters {
  company?: string;
  category?: string;
  topic?: string;
  search?: string;
  difficulty?: Difficulty;
  bucket: Bucket;
  sort?: 'frequency' | 'difficulty' | 'acceptance';
}

export interface ListedRow {
  id: string; slug: string; title: string; category: string; difficulty: 'easy' | 'medium' | 'hard'; source: 'prep' | 'organization' | 'imported'; link: string | null;
  problem_id: string | null; organization_id: string | null;
  asked: number | null; judged: number | null; accepted: number | null;
  imported_frequency: number | null; imported_acceptance: number | null; imported_companies: number | null;
  /** Topic slugs, comma-separated. */
  topics: string | null;
}

/** The owners whose imported statistics a caller sees: installation-wide imports ('') and its own. */
export const importedStatsOwners = (organizationId: string) => ['', organizationId];

/**
 * Of the imported figures `s` a caller sees, those its own import does not replace: where the organisation's import
 * and an installation-wide one both hold a question's figures for a company and bucket, the organisation's are what
 * shows (as in a question's detail), not the higher of the two.
 */
const ownFiguresFirst = (organizationId: string) => (eb: any): Expression<SqlBool> => eb.or([
  eb('s.owner', '=', organizationId),
  eb.not(eb.exists(eb.selectFrom('question_bank_imported_stats as own').select('own.question_id').where('own.owner', '=', organizationId)
    .whereRef('own.question_id', '=', 's.question_id').whereRef('own.company_slug', '=', 's.company_slug').whereRef('own.bucket', '=', 's.bucket'))),
]);

/** A stored figure's window as its place in BUCKETS (1 for 30d … 4 for all), so one bound value says which lie within one. */
const bucketWidth = sql<number>`case m.bucket ${sql.join(BUCKETS.map((b, i) => sql`when ${sql.lit(b)} then ${sql.lit(i + 1)}`), sql` `)} end`;

/** An organisation sees the shared questions and its own. */
const visibleTo = (organizationId: string) => (eb: any): Expression<SqlBool> =>
  eb.or([eb('q.organization_id', 'is', null), eb('q.organization_id', '=', organizationId)]);

/**
 * The taxonomy entries `x` an organisation sees: the shared ones and those its own imports brought, a slug in both
 * being the shared entry. Another organisation's never show.
 */
const taxonomyOf = (organizationId: string) => (eb: any): Expression<SqlBool> => eb.or([
  eb('x.owner', '=', ''),
  eb.and([eb('x.owner', '=', organizationId), eb.not(eb.exists(eb.selectFrom('question_bank_taxonomy as sx').select('sx.slug')
    .where('sx.owner', '=', '').whereRef('sx.kind', '=', 'x.kind').whereRef('sx.slug', '=', 'x.slug')))]),
]);

/**
 * A text column as ordered by its bytes (code points) on both engines: SQLite compares text as bytes (BINARY), but
 * PostgreSQL by the database's collation, and one made with another (en_US.UTF-8: '-' ignored, "ab" before "a-z")
 * ordered slugs otherwise. `collate "C"` makes PostgreSQL's order SQLite's, whatever the database was made with.
 */
export const byBytes = (db: Kysely<any>, column: string) =>
  (db.getExecutor().adapter instanceof PostgresAdapter ? sql`${sql.ref(column)} collate "C"` : sql.ref(column));

/** A question's topic slugs, comma-separated, in byte order (string_agg with ORDER BY: PostgreSQL, and SQLite from 3.44). */
export const topicsOfQuestion = (db: Kysely<any>) =>
  sql<string | null>`(select string_agg(t.topic, ',' order by ${byBytes(db, 't.topic')}) from question_bank_question_topics t where t.question_id = q.id)`;

export function createQuestionBankRepo(database: Db) {
  const db = database.kysely;
  const postgres = database.dialect === 'postgres';
  /**
   * The list query, compiled once per sort and per set of filters present (`prepared`); every argument is a bound
   * value. `match` is the search, written for the engine (search.ts).
   */
  const pageQuery = (sort: ListFilters['sort'] | 'relevance') => prepared(database, (
    organizationId: string, livemode: 0 | 1, from: number, bucket: string, limit: number, offset: number,
    company?: string, category?: string, topic?: string, rank?: number, match?: string, within?: number,
  ) => {
    let imported = db.selectFrom('question_bank_imported_stats as s')
      .select((eb) => ['s.question_id', eb.fn.max('s.frequency').as('imported_frequency'), eb.fn.max('s.acceptance').as('imported_acceptance'),
        eb.fn.count<number>('s.company_slug').distinct().as('imported_companies')])
      .where('s.owner', 'in', importedStatsOwners(organizationId)).where('s.bucket', '=', bucket)
      .where(ownFiguresFirst(organizationId));
    if (company !== undefined) imported = imported.where('s.company_slug', '=', company);
    let q = db.selectFrom('question_bank_questions as q')
      .leftJoin(askedByProblem(db, organizationId, livemode, from).as('a'), 'a.problem_id', 'q.problem_id')
      .leftJoin(judgedByProblem(db, organizationId, livemode, from).as('j'), 'j.problem_id', 'q.problem_id')
      .leftJoin(imported.groupBy('s.question_id').as('i'), 'i.question_id', 'q.id')
      .select(['q.id', 'q.slug', 'q.title', 'q.category', 'q.difficulty', 'q.source', 'q.link', 'q.problem_id', 'q.organization_id',
        'a.asked', 'j.judged', 'j.accepted', 'i.imported_frequency', 'i.imported_acceptance', 'i.imported_companies', topicsOfQuestion(db).as('topics')])
      .where(visibleTo(organizationId));
    // A company's questions in a window are those its files list for that window or a shorter one: asked in the last
    // 30 days is asked in the last 90 and of all time (as /companies counts them). Figures stay the window's own.
    if (company !== undefined) {
      q = q.where((eb) => eb.exists(eb.selectFrom('question_bank_imported_stats as m').select('m.question_id')
        .whereRef('m.question_id', '=', 'q.id').where('m.company_slug', '=', company).where('m.owner', 'in', importedStatsOwners(organizationId))
        .where(bucketWidth, '<=', within!)));
    }
    if (category !== undefined) q = q.where('q.category', '=', category);
    if (rank !== undefined) q = q.where('q.difficulty_rank', '=', rank);
    if (topic !== undefined) {
      q = q.where((eb) => eb.exists(eb.selectFrom('question_bank_question_topics as t').select('t.topic')
        .whereRef('t.question_id', '=', 'q.id').where('t.topic', '=', topic)));
    }
    if (match !== undefined) {
      if (postgres) {
        // Read as the column is (`prep_english`, migration 0031: English stems, stop words kept, so a phrase's inner
        // "the" is that word as on SQLite; parseSearch dropped the others). querytree is 'T' for a query that only
        // excludes: like one with nothing to look for, it matches nothing.
        q = q.where(sql<SqlBool>`q.search @@ to_tsquery('prep_english', ${match}) and querytree(to_tsquery('prep_english', ${match})) <> 'T'`);
        // The column weighs titles A and prompts D (migration 0020): ts_rank's defaults count a title ten times.
        if (sort === 'relevance') q = q.orderBy(sql`ts_rank(q.search, to_tsquery('prep_english', ${match}))`, 'desc');
      } else {
        // Titles weigh ten times prompts (question_id is not indexed).
        const hits = db.selectFrom('question_bank_fts').select(['question_id', sql<number>`bm25(question_bank_fts, 0.0, 10.0, 1.0)`.as('rank')])
          .where(sql<SqlBool>`question_bank_fts match ${match}`);
        q = q.innerJoin(hits.as('f'), 'f.question_id', 'q.id');
        if (sort === 'relevance') q = q.orderBy(sql`f.rank`, 'asc');
      }
    }
    if (sort === 'frequency') {
      q = q.orderBy(sql`coalesce(a.asked, 0)`, 'desc').orderBy(sql`coalesce(i.imported_frequency, -1)`, 'desc');
    } else if (sort === 'difficulty') {
      q = q.orderBy('q.difficulty_rank', 'asc');
    } else if (sort === 'acceptance') {
      q = q.orderBy(sql`case when j.judged > 0 then 1.0 * j.accepted / j.judged else -1 end`, 'desc')
        .orderBy(sql`coalesce(i.imported_acceptance, -1)`, 'desc');
    }
    // The stable key: pages never repeat or skip a question while nothing changes.
    return q.orderBy('q.id', 'asc').limit(limit).offset(offset);
  });
  const pages = { frequency: pageQuery('frequency'), difficulty: pageQuery('difficulty'), acceptance: pageQuery('acceptance'), relevance: pageQuery('relevance') };

  return {
    /** One page (offset-backed) of the filtered, sorted list; one row more than `limit` says there is more. */
    async list(tenant: Tenant, f: ListFilters, offset: number, limit: number, now: number): Promise<ListedRow[]> {
      const terms = f.search === undefined ? undefined : parseSearch(f.search);
      if (terms === null) return []; // nothing to look for
      const match = terms === undefined ? undefined : (postgres ? tsQueryText(terms) : ftsQuery(terms));
      const sort = f.sort ?? (match === undefined ? 'frequency' : 'relevance');
      const rows = await pages[sort](tenant.organizationId, livemodeFlag(tenant), since(f.bucket, now), f.bucket, limit + 1, offset,
        f.company, f.category, f.topic, f.difficulty === undefined ? undefined : difficultyRank(f.difficulty), match,
        f.company === undefined ? undefined : BUCKETS.indexOf(f.bucket) + 1); // as bucketWidth numbers it
      return rows as unknown as ListedRow[];
    },

    /** The most-asked count among the caller's questions in a bucket: its frequency is 100. */
    async topAsked(tenant: Tenant, bucket: Bucket, now: number): Promise<number> {
      const rows = await database.read(db.selectFrom(askedByProblem(db, tenant.organizationId, livemodeFlag(tenant), since(bucket, now)).as('a'))
        .select((eb) => eb.fn.max('a.asked').as('top'))
        .where((eb) => eb.exists(eb.selectFrom('question_bank_questions as q').select('q.id').whereRef('q.problem_id', '=', 'a.problem_id').where(visibleTo(tenant.organizationId))))
        .compile());
      return Number((rows[0] as { top: number | null } | undefined)?.top ?? 0);
    },

    async get(tenant: Tenant, id: string) {
      const rows = await database.read(db.selectFrom('question_bank_questions as q').selectAll('q').select(topicsOfQuestion(db).as('topics'))
        .where('q.id', '=', id).where(visibleTo(tenant.organizationId)).compile());
      return rows[0] as (Database['question_bank_questions'] & { topics: string | null }) | undefined;
    },

    /** Measured activity of one problem in every bucket. */
    async problemActivity(tenant: Tenant, problemId: string, now: number) {
      const out = {} as Record<Bucket, { asked: number; judged: number; accepted: number }>;
      for (const bucket of BUCKETS) {
        const from = since(bucket, now);
        const [asked] = await database.read(askedByProblem(db, tenant.organizationId, livemodeFlag(tenant), from).where('csp.problem_id', '=', problemId).compile());
        const [judged] = await database.read(judgedByProblem(db, tenant.organizationId, livemodeFlag(tenant), from).where('problem_id', '=', problemId).compile());
        out[bucket] = { asked: Number(asked?.asked ?? 0), judged: Number(judged?.judged ?? 0), accepted: Number(judged?.accepted ?? 0) };
      }
      return out;
    },

    async importedOf(tenant: Tenant, id: string) {
      return database.read(db.selectFrom('question_bank_imported_stats').select(['company_slug', 'company_name', 'bucket', 'frequency', 'acceptance', 'source_file', 'imported_at'])
        .where('question_id', '=', id).where('owner', 'in', importedStatsOwners(tenant.organizationId))
        // The organisation's own import comes last, so it is what shows for a company and bucket both hold.
        .orderBy(byBytes(db, 'company_slug')).orderBy('bucket').orderBy('owner').compile());
    },

    async companies(tenant: Tenant, offset: number, limit: number) {
      return database.read(db.selectFrom('question_bank_imported_stats as s').innerJoin('question_bank_questions as q', 'q.id', 's.question_id')
        .select((eb) => ['s.company_slug', eb.fn.max('s.company_name').as('name'), eb.fn.count<number>('s.question_id').distinct().as('question_count')])
        .where('s.owner', 'in', importedStatsOwners(tenant.organizationId)).where(visibleTo(tenant.organizationId))
        .groupBy('s.company_slug').orderBy('question_count', 'desc').orderBy(byBytes(db, 's.company_slug')).limit(limit + 1).offset(offset).compile()) as
        Promise<Array<{ company_slug: string; name: string; question_count: number }>>;
    },

    /** Every category or topic a caller may name (slug and name): filters resolve a name to its slug through these. */
    async taxonomyNames(tenant: Tenant, kind: 'category' | 'topic') {
      return database.read(db.selectFrom('question_bank_taxonomy as x').select(['x.slug', 'x.name']).where('x.kind', '=', kind)
        .where(taxonomyOf(tenant.organizationId)).compile()) as
        Promise<Array<{ slug: string; name: string }>>;
    },

    async taxonomy(tenant: Tenant, kind: 'category' | 'topic', offset: number, limit: number) {
      const counted = kind === 'category'
        ? db.selectFrom('question_bank_questions as q').select((eb) => ['q.category as slug', eb.fn.countAll<number>().as('n')]).where(visibleTo(tenant.organizationId)).groupBy('q.category')
        : db.selectFrom('question_bank_question_topics as t').innerJoin('question_bank_questions as q', 'q.id', 't.question_id')
          .select((eb) => ['t.topic as slug', eb.fn.countAll<number>().as('n')]).where(visibleTo(tenant.organizationId)).groupBy('t.topic');
      return database.read(db.selectFrom('question_bank_taxonomy as x').innerJoin(counted.as('c'), 'c.slug', 'x.slug')
        .select(['x.slug', 'x.name', 'x.description', 'c.n as question_count']).where('x.kind', '=', kind).where(taxonomyOf(tenant.organizationId))
        .orderBy('question_count', 'desc').orderBy(byBytes(db, 'x.slug')).limit(limit + 1).offset(offset).compile()) as
        Promise<Array<{ slug: string; name: string; description: string | null; question_count: number }>>;
    },
  };
}

export type QuestionBankRepo = ReturnType<typeof createQuestionBankRepo>;
