import { createHash } from 'node:crypto';
import { toUnixSeconds, type Clock } from '../../platform/clock.js';
import type { Tenant } from '../../platform/context.js';
import { notFound } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';
import { BUCKETS, slugify, type Bucket, type Guidance } from './content.js';
import { createCursorCodec } from './cursor.js';
import { since, type ListedRow, type ListFilters, type QuestionBankRepo } from './repo.js';

export interface QuestionBankDeps {
  repo: QuestionBankRepo;
  clock: Clock;
  /** Signs list cursors; derived from the service's encryption key, so cursors survive restarts. */
  cursorKey: () => Buffer;
}

export interface PageArgs { limit: number; startingAfter?: string }

// Windows end on a whole second (the unit they are shown in), so a page's query repeats within the second and its
// result can come from the read cache.
const wholeSecond = (ms: number) => ms - (ms % 1000);

/** 100 × count / the bucket's largest count, one decimal; 0 when nothing was asked. */
export const frequencyOf = (count: number, top: number) => (top > 0 ? Math.round((1000 * count) / top) / 10 : 0);
const ratio = (accepted: number, judged: number) => (judged > 0 ? Math.round((10_000 * accepted) / judged) / 10_000 : null);

export function createQuestionBankService({ repo, clock, cursorKey }: QuestionBankDeps) {
  let codec: ReturnType<typeof createCursorCodec> | null = null;
  const cursors = () => (codec ??= createCursorCodec(createHash('sha256').update('prep question-bank cursor\u0000').update(cursorKey()).digest()));

  /** Offset-backed paging: the cursor is bound to the caller and to the query (`what`). */
  async function paged<R, T>(tenant: Tenant, what: unknown, page: PageArgs, read: (offset: number, limit: number) => Promise<R[]>, map: (rows: R[]) => T[] | Promise<T[]>) {
    const scope = JSON.stringify([tenant.organizationId, tenant.livemode, what]);
    const offset = page.startingAfter === undefined ? 0 : cursors().decode(page.startingAfter, scope);
    const rows = await read(offset, page.limit);
    const has_more = rows.length > page.limit;
    const data = await map(rows.slice(0, page.limit));
    return { object: 'list' as const, data, has_more, next_cursor: has_more ? cursors().encode(offset + page.limit, scope) : null };
  }

  function window(bucket: Bucket, now: number) {
    return { start: bucket === 'all' ? null : toUnixSeconds(since(bucket, now)), end: toUnixSeconds(now) };
  }

  return {
    companies: (tenant: Tenant, page: PageArgs) => paged(tenant, 'companies', page, (o, l) => repo.companies(tenant, o, l),
      (rows) => rows.map((r) => ({ object: 'question_bank_company' as const, slug: r.company_slug, name: r.name, question_count: Number(r.question_count) }))),

    categories: (tenant: Tenant, page: PageArgs) => paged(tenant, 'categories', page, (o, l) => repo.taxonomy(tenant, 'category', o, l),
      (rows) => rows.map((r) => ({ object: 'question_bank_category' as const, slug: r.slug, name: r.name, description: r.description ?? '', question_count: Number(r.question_count) }))),

    topics: (tenant: Tenant, page: PageArgs) => paged(tenant, 'topics', page, (o, l) => repo.taxonomy(tenant, 'topic', o, l),
      (rows) => rows.map((r) => ({ object: 'question_bank_topic' as const, slug: r.slug, name: r.name, question_count: Number(r.question_count) }))),

    /**
     * Filters name companies, categories and topics by slug or name ("Hash Table" = "hash-table"). A category or topic
     * slug need not be its name slugified ("Behavioural" is behavioral): a name is looked up in the taxonomy.
     */
    async list(tenant: Tenant, query: Omit<ListFilters, 'bucket'> & { bucket?: Bucket }, page: PageArgs) {
      const now = wholeSecond(clock.now());
      const slugOf = async (kind: 'category' | 'topic', value: string) => {
        const wanted = slugify(value);
        const entries = await repo.taxonomyNames(tenant, kind);
        return entries.some((e) => e.slug === wanted) ? wanted : (entries.find((e) => slugify(e.name) === wanted)?.slug ?? wanted);
      };
      const f: ListFilters = {
        bucket: query.bucket ?? 'all',
        ...(query.company !== undefined ? { company: slugify(query.company) } : {}),
        ...(query.category !== undefined ? { category: await slugOf('category', query.category) } : {}),
        ...(query.topic !== undefined ? { topic: await slugOf('topic', query.topic) } : {}),
        ...(query.search !== undefined && query.search.trim() !== '' ? { search: query.search } : {}),
        ...(query.difficulty !== undefined ? { difficulty: query.difficulty } : {}),
        ...(query.sort !== undefined ? { sort: query.sort } : {}),
      };
      return paged(tenant, ['questions', f], page, (o, l) => repo.list(tenant, f, o, l, now), async (rows) => {
        const top = rows.some((r) => Number(r.asked ?? 0) > 0) ? await repo.topAsked(tenant, f.bucket, now) : 0;
        return rows.map((r) => presentListed(r, f, top, window(f.bucket, now)));
      });
    },

    /** The question, its statistics in every bucket, its companies and, for interviewers, its guidance. */
    async get(tenant: Tenant, id: string) {
      const row = isUuid(id) ? await repo.get(tenant, id.toLowerCase()) : undefined;
      if (!row) throw notFound('question', id);
      const now = wholeSecond(clock.now());
      const activity = row.problem_id === null ? null : await repo.problemActivity(tenant, row.problem_id, now);
      const imported = (await repo.importedOf(tenant, row.id)) as Array<{ company_slug: string; company_name: string; bucket: Bucket; frequency: number; acceptance: number | null; source_file: string; imported_at: number }>;
      const companies = new Map<string, { slug: string; name: string; statistics: Record<string, unknown> }>();
      for (const s of imported) {
        const company = companies.get(s.company_slug) ?? { slug: s.company_slug, name: s.company_name, statistics: {} };
        company.statistics[s.bucket] = { frequency: Number(s.frequency), acceptance: s.acceptance === null ? null : Number(s.acceptance), source: 'imported', file: s.source_file, imported_at: toUnixSeconds(Number(s.imported_at)) };
        companies.set(s.company_slug, company);
      }
      const statistics: Record<string, ReturnType<typeof measured>> = {};
      for (const b of BUCKETS) {
        const a = activity?.[b] ?? { asked: 0, judged: 0, accepted: 0 };
        statistics[b] = measured(a.asked, a.judged, a.accepted, a.asked > 0 ? await repo.topAsked(tenant, b, now) : 0, window(b, now));
      }
      return {
        ...presentCore(row),
        prompt: row.prompt,
        guidance: row.guidance === null ? null : (JSON.parse(row.guidance) as Guidance),
        statistics,
        companies: [...companies.values()],
      };
    },
  };
}

export type QuestionBankService = ReturnType<typeof createQuestionBankService>;

function presentCore(r: Pick<ListedRow, 'id' | 'slug' | 'title' | 'category' | 'difficulty' | 'source' | 'link' | 'problem_id' | 'organization_id' | 'topics'>) {
  return {
    object: 'question_bank_question' as const, id: r.id, slug: r.slug, title: r.title, category: r.category, difficulty: r.difficulty,
    topics: r.topics === null ? [] : r.topics.split(','), source: r.source, link: r.link, coding_problem_id: r.problem_id, custom: r.organization_id !== null,
  };
}

function measured(asked: number, judged: number, accepted: number, top: number, window: { start: number | null; end: number }) {
  return {
    source: 'measured' as const, window, asked_count: asked, frequency: frequencyOf(asked, top),
    judged_count: judged, accepted_count: accepted, acceptance: ratio(accepted, judged),
  };
}

function presentListed(r: ListedRow, f: ListFilters, top: number, window: { start: number | null; end: number }) {
  return {
    ...presentCore(r),
    time_bucket: f.bucket,
    statistics: measured(Number(r.asked ?? 0), Number(r.judged ?? 0), Number(r.accepted ?? 0), top, window),
    imported_statistics: r.imported_frequency === null ? null : {
      source: 'imported' as const, company: f.company ?? null, companies: Number(r.imported_companies ?? 0),
      frequency: Number(r.imported_frequency), acceptance: r.imported_acceptance === null ? null : Number(r.imported_acceptance),
    },
  };
}
