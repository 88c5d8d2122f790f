import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InterviewTurnsTable } from '../../src/db/schema.js';
import { createInterviewRepo } from '../../src/modules/interviews/repo.js';
import type { Harness, Org } from '../helpers/harness.js';
import { interviewSuite, type InterviewKit } from '../helpers/interviews.js';

let h: Harness;
let kit: InterviewKit;
let org: Org;

beforeAll(async () => {
  ({ h, kit, org } = await interviewSuite());
});
afterAll(async () => {
  await h.close();
});

/** A joined interview (in progress), with nothing said yet. */
async function running() {
  const key = org.keys.secret_test;
  const interview = await kit.create(key);
  await kit.join(await kit.token(key, interview.id), interview.id);
  return interview.id as string;
}

const turn = (interviewId: string, seq: number, extra: Partial<InterviewTurnsTable> = {}): InterviewTurnsTable => ({
  interview_id: interviewId, seq, speaker: 'candidate', kind: 'text', text: `turn ${seq}`, question_position: seq % 2 === 0 ? null : 1,
  client_id: seq % 2 === 0 ? null : `c-${seq}`, data: seq % 3 === 0 ? JSON.stringify({ seq }) : null, at_ms: seq * 100, created_at: 1_000 + seq, ...extra,
});

describe('the conversation\'s compiled statements', () => {
  it('store one, two and many turns per statement, every column as given, and read them back in order', async () => {
    const repo = createInterviewRepo(h.db);
    const id = await running();
    const batches = [[turn(id, 1)], [turn(id, 2), turn(id, 3, { speaker: 'interviewer', kind: 'board' })], [4, 5, 6, 7, 8].map((s) => turn(id, s))];
    for (const rows of batches) await h.db.kysely.transaction().execute((tx) => repo.insertTurns(tx, rows));
    expect(await repo.turnsNow(id)).toEqual(batches.flat());
    expect((await repo.turnsNow(id, 6)).map((t) => t.seq)).toEqual([7, 8]);
  });

  it('advance moves the interview on only from the row it saw, with or without the interviewer\'s state', async () => {
    const repo = createInterviewRepo(h.db);
    const id = await running();
    const seen = (await repo.byIdNow(id))!;
    const now = seen.updated_at + 1;
    expect(await h.db.kysely.transaction().execute((tx) => repo.advance(tx, seen, 2, '{"phase":"question"}', now))).toBe(true);
    // The same snapshot again is stale: nothing changes.
    expect(await h.db.kysely.transaction().execute((tx) => repo.advance(tx, seen, 2, '{"phase":"x"}', now + 1))).toBe(false);
    const moved = (await repo.byIdNow(id))!;
    expect(moved).toMatchObject({ next_seq: seen.next_seq + 2, updated_at: now, interviewer: '{"phase":"question"}' });
    expect(await h.db.kysely.transaction().execute((tx) => repo.advance(tx, moved, 1, null, now + 2))).toBe(true);
    expect(await repo.byIdNow(id)).toMatchObject({ next_seq: seen.next_seq + 3, interviewer: '{"phase":"question"}' });
  });
});

describe('the company lists that steer a plan', () => {
  // Was a bug (a security review): an organisation's private import (`prep bank import --org`) steered every other
  // organisation's interview plans for that company, and what they drew hinted at what it had imported.
  it('are those this organisation sees: installation-wide imports and its own, never another organisation\'s', async () => {
    const other = await h.createOrg('Other Co');
    const [shared, mine] = await h.db.kysely.selectFrom('question_bank_questions').select('id').where('organization_id', 'is', null).limit(2).execute();
    const stats = (owner: string, questionId: string) => ({
      owner, question_id: questionId, company_slug: 'acme-private', company_name: 'Acme', bucket: 'all', frequency: 99, acceptance: null, source_file: 'all.csv', imported_at: 1,
    });
    await h.db.kysely.insertInto('question_bank_imported_stats').values([stats(other.id, shared.id), stats(org.id, mine.id)] as never).execute();
    const repo = createInterviewRepo(h.db);
    expect([...await repo.companyQuestionIds(h.db.kysely, org.id, 'acme-private')]).toEqual([mine.id]);
    expect([...await repo.companyQuestionIds(h.db.kysely, other.id, 'acme-private')]).toEqual([shared.id]);
  });
});

// Was a bug: a plan made before the problem's id was kept names its problem by slug alone, and the slug was looked up
// in every organisation's problems: with no shared problem of that slug, the final code was judged (and its runs
// limited) on another organisation's problem, hidden cases and all.
describe('a problem a plan names by slug alone', () => {
  it('is the shared one or the interview organisation\'s own, never another organisation\'s', async () => {
    const repo = createInterviewRepo(h.db);
    const other = await kit.organization('Other problems');
    const shared = await h.db.kysely.selectFrom('coding_problems').selectAll().where('organization_id', 'is', null).orderBy('slug').executeTakeFirstOrThrow();
    const slug = `private-${Date.now()}`;
    const bySlug = (s: string) => ({ slug: s, title: s, statement: '' }); // as a plan stored before ids were kept
    const problem = (organizationId: string, timeLimitMs: number) => ({
      ...shared, id: crypto.randomUUID(), organization_id: organizationId, slug, hidden_cases: JSON.stringify([{ name: organizationId, input: '', output: '' }]), time_limit_ms: timeLimitMs,
    });
    await h.db.kysely.insertInto('coding_problems').values(problem(other.id, 1111)).execute();
    expect(await repo.problemCases(h.db.kysely, bySlug(slug), org.id)).toBeUndefined();
    expect(await repo.problemLimits(h.db.kysely, bySlug(slug), org.id)).toBeUndefined();
    expect((await repo.problemLimits(h.db.kysely, bySlug(slug), other.id))?.time_limit_ms).toBe(1111);
    await h.db.kysely.insertInto('coding_problems').values(problem(org.id, 2222)).execute();
    expect(JSON.parse((await repo.problemCases(h.db.kysely, bySlug(slug), org.id))!.hidden_cases)[0].name).toBe(org.id);
    expect((await repo.problemLimits(h.db.kysely, bySlug(slug), org.id))?.time_limit_ms).toBe(2222);
    // The shared one of a slug still comes first, as before.
    expect((await repo.problemLimits(h.db.kysely, bySlug(shared.slug), other.id))?.time_limit_ms).toBe(shared.time_limit_ms);
  });
});
