import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.js';
import { judgingKit } from '../helpers/judging.js';

/**
 * Erasing the candidate of a coding session: the submissions stay with their verdicts, without the person's code or
 * anything quoting it (a compiler's message quotes the line it stopped at).
 */

let h: Harness;
let kit: ReturnType<typeof judgingKit>;
const NAME = 'Quixotevich';
const url = (id: string, op: string) => `/v1/coding-sessions/${id}/${op}`;

beforeAll(async () => {
  h = await startHarness({ env: { PREP_RATE_LIMIT: '100000' } });
  kit = judgingKit(h);
});
afterAll(async () => {
  await h.close();
});

const candidateOf = async (sessionId: string) =>
  (await h.db.kysely.selectFrom('coding_sessions').select('candidate_id').where('id', '=', sessionId).executeTakeFirstOrThrow()).candidate_id!;
const submissionsOf = (sessionId: string) => h.db.kysely.selectFrom('coding_submissions').selectAll().where('session_id', '=', sessionId).execute();

describe('erasing the candidate of a coding session', () => {
  // Was a bug (a privacy review): erasure blanked the source but kept the compiler's output, which quotes it.
  it('keeps no compiler output quoting their code', async () => {
    const key = h.org.keys.secret_test;
    const s = await kit.session(key, 'foundations-practice-set');
    const res = await kit.call('POST', url(s.id, 'submissions'), {
      token: s.token, body: { problem_id: s.problems[0]!.id, language: 'c', source: `int main(void) { ${NAME} x; return 0; }\n` },
    });
    expect(res.status, res.raw).toBe(202);
    await kit.settle();
    expect(JSON.stringify(await submissionsOf(s.id))).toContain(NAME);
    await kit.call('DELETE', `/v1/candidates/${await candidateOf(s.id)}`, { key });
    const [submission] = await submissionsOf(s.id);
    expect(submission).toMatchObject({ source: '', verdict: 'COMPILE_ERROR' });
    expect(JSON.stringify(submission)).not.toContain(NAME);
  });

  // Was a bug: the erasure blanked the code of submissions not judged yet, so a session the candidate had finalized
  // was scored on empty programs, not "as it would have been" (api-design.md).
  it('judges a submission still queued on the code submitted, then forgets the code', async () => {
    const key = h.org.keys.secret_test;
    const s = await kit.session(key, 'foundations-practice-set');
    const problem = s.problems[0]!;
    const source = `# ${NAME}\n${await kit.reference(problem.id)}`;
    const res = await kit.call('POST', url(s.id, 'submissions'), { token: s.token, body: { problem_id: problem.id, language: 'python', source } });
    expect(res.status, res.raw).toBe(202);
    expect((await kit.call('POST', url(s.id, 'finalize'), { token: s.token })).status).toBe(202);
    await kit.call('DELETE', `/v1/candidates/${await candidateOf(s.id)}`, { key });
    await kit.settle();
    const [submission] = await submissionsOf(s.id);
    expect(submission).toMatchObject({ status: 'judged', verdict: 'ACCEPTED', source: '' });
    expect(JSON.stringify(await h.db.kysely.selectFrom('coding_reports').selectAll().where('session_id', '=', s.id).execute())).not.toContain(NAME);
  });

  // Was a bug: a judge that read the code before the erasure wrote the compiler's output quoting it after.
  it('a judge under way when the candidate is erased stores nothing quoting their code', async () => {
    const key = h.org.keys.secret_test;
    const s = await kit.session(key, 'foundations-practice-set');
    const res = await kit.call('POST', url(s.id, 'submissions'), {
      token: s.token, body: { problem_id: s.problems[0]!.id, language: 'c', source: `int main(void) { ${NAME} x; return 0; }\n` },
    });
    expect(res.status, res.raw).toBe(202);
    const candidateId = await candidateOf(s.id);
    const sandbox = h.services.sandbox;
    const execute = sandbox.execute.bind(sandbox);
    sandbox.execute = (async (...args: Parameters<typeof execute>) => {
      const result = await execute(...args);
      await kit.call('DELETE', `/v1/candidates/${candidateId}`, { key });
      return result;
    }) as typeof execute;
    try {
      await kit.settle();
    } finally {
      sandbox.execute = execute;
    }
    expect((await kit.call('GET', `/v1/candidates/${candidateId}`, { key })).status).toBe(404);
    const [submission] = await submissionsOf(s.id);
    expect(submission).toMatchObject({ status: 'judged', verdict: 'COMPILE_ERROR', source: '' });
    expect(JSON.stringify(submission)).not.toContain(NAME);
  });
});
