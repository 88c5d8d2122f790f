import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOrganizationQuestions } from '../../src/modules/question-bank/catalog.js';
import type { Harness, Org } from '../helpers/harness.js';
import { interviewSuite, type InterviewKit } from '../helpers/interviews.js';
import { settleJobs } from '../helpers/settle.js';

let h: Harness;
let kit: InterviewKit;
let org: Org;
let dir: string;

beforeAll(async () => {
  ({ h, kit, org } = await interviewSuite());
  dir = mkdtempSync(path.join(tmpdir(), 'prep-bank-problem-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await h.close();
});

// Was a bug: an interview's plan kept its problem by slug only, and its final code was judged (and its runs limited)
// on the first coding problem of that slug in the whole table: an organisation's own problem of a shared problem's
// slug was judged on the shared one's tests, and one organisation's problem could be judged on another's.
describe('a bank question naming a coding problem', () => {
  it("judges the interview's final code on the very problem the question names", async () => {
    const shared = await h.db.kysely.selectFrom('coding_problems').selectAll().where('organization_id', 'is', null).orderBy('slug').executeTakeFirstOrThrow();
    // The organisation's own problem of the same slug (its own wins over the shared one): print 42.
    const answer = [{ input: '', output: '42\n' }];
    await h.db.kysely.insertInto('coding_problems').values({
      ...shared, id: randomUUID(), organization_id: org.id, title: 'The answer', statement: 'Print 42.', comparator: 'exact',
      examples: JSON.stringify(answer), hidden_cases: JSON.stringify([1, 2, 3].map((i) => ({ name: `hidden-${i}`, ...answer[0] }))),
    }).execute();
    // Its question is the only one with a problem, so a live-coding round draws it.
    await h.db.kysely.updateTable('question_bank_questions').set({ problem_id: null }).where('organization_id', 'is', null).execute();
    const file = path.join(dir, 'answer.json');
    writeFileSync(file, JSON.stringify([{
      slug: 'the-answer', title: 'The answer to everything', category: 'coding', difficulty: 'medium', topics: ['math'], problem: shared.slug,
      prompt: 'Write a program that prints the answer to life, the universe and everything. Explain how you would test it, what its output format is, and how you would keep it fast under load.',
      guidance: { key_points: ['Prints exactly one line', 'Tests the output format', 'Knows the answer is 42'], follow_ups: ['How would you test it?', 'What if the answer changed?'] },
    }]));
    await addOrganizationQuestions(h.db.kysely, org.id, file);

    const key = org.keys.secret_test;
    const { interview, token, channel } = await kit.started(key, { round_type: 'live-coding' });
    const planned = await h.db.kysely.selectFrom('interview_questions').select(['position', 'problem']).where('interview_id', '=', interview.id)
      .where('problem', 'is not', null).executeTakeFirstOrThrow();
    expect(JSON.parse(planned.problem!)).toMatchObject({ slug: shared.slug, title: 'The answer' });
    const run = await kit.client.ok('POST', `/v1/interviews/${interview.id}/code`, { token, body: { language: 'python', source: 'print(42)', run: true, stdin: '' } });
    await channel.until(() => channel.turns.find((t) => t.seq === run.turn), 'the code turn');
    for (const said of [
      'My approach is to print the constant directly, since the answer does not depend on any input at all, and keep it simple.',
      'The time complexity is constant and so is the space, because the program only writes one short line to standard output.',
      'I would test that exactly one line is printed, that it ends with a newline, and that nothing else is written to the output.',
    ]) await channel.answer(said);
    await kit.client.ok('POST', `/v1/interviews/${interview.id}/end`, { token }, 200);
    await settleJobs(h, ['interview.process'], 'processing');
    const report = await kit.client.ok('GET', `/v1/interviews/${interview.id}/report`, { key }, 200);
    expect(report.code.tests).toEqual([expect.objectContaining({ problem: shared.slug, verdict: 'ACCEPTED', passed: 4, total: 4 })]);
    // The editor was shown the problem, not the catalogue's id of it.
    const shown = (await h.db.kysely.selectFrom('interview_turns').select('data').where('interview_id', '=', interview.id).where('data', 'is not', null).execute())
      .map((t) => JSON.parse(t.data!).problem).filter((p) => p !== undefined);
    expect(shown).toEqual([{ slug: shared.slug, title: 'The answer', statement: expect.stringContaining('Print 42.') }]);
  });
});
