import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness, Org } from '../helpers/harness.js';
import { interviewSuite, type InterviewKit } from '../helpers/interviews.js';
import { psychometricKit } from '../helpers/psychometric.js';

/** A privacy review of DELETE /v1/candidates/{id}. */

const NAME = 'Zebulon Quixotevich';
let h: Harness;
let kit: InterviewKit;
let org: Org;

beforeAll(async () => {
  ({ h, kit, org } = await interviewSuite({ PREP_RATE_LIMIT_MODEL: '100000' }));
});
afterAll(async () => {
  await h?.close();
});

describe('session tokens of an erased candidate', () => {
  // Was a bug (a privacy review): the erasure closed the sessions but left their tokens valid, so whoever held a
  // psychometric session's token still read the erased person's answers, and any token still refreshed.
  it('stop working at once, for every kind of session and for interviews', async () => {
    const key = org.keys.secret_test;
    const client = kit.client;
    const candidateId = await client.candidate(key, { name: NAME });
    const psy = psychometricKit(h);
    const psyAssigned = await client.assign(key, 'psychometric', await psy.testId(key, 'mini-ipip'), candidateId);
    const psyToken = await client.token(key, 'psychometric', psyAssigned.id);
    const started = await client.ok('POST', `/v1/psychometric-sessions/${psyAssigned.id}/start`, { token: psyToken }, 200);
    await client.ok('POST', `/v1/psychometric-sessions/${psyAssigned.id}/progress`, { token: psyToken, body: { answers: [{ item_id: started.items[0].id, value: 5 }] } }, 200);
    const codingTest = await h.db.kysely.selectFrom('coding_tests').select('id').where('slug', '=', 'core-data-structures-screen').executeTakeFirstOrThrow();
    const coding = await client.assign(key, 'coding', codingTest.id, candidateId);
    const codingToken = await client.token(key, 'coding', coding.id);
    const interview = await kit.create(key, {}, candidateId);
    const interviewToken = await kit.token(key, interview.id);
    const refresh = await client.call('POST', '/v1/sessions/refresh', { token: psyToken });
    expect(refresh.status, refresh.raw).toBe(201);

    await client.ok('DELETE', `/v1/candidates/${candidateId}`, { key }, 200);

    const read = await client.call('GET', `/v1/psychometric-sessions/${psyAssigned.id}`, { token: psyToken });
    expect(read.status, read.raw).toBe(401);
    expect(read.raw).not.toContain('"answers"');
    for (const token of [psyToken, refresh.body.session_token, codingToken, interviewToken]) {
      const context = await client.call('GET', '/v1/session', { token });
      expect(context.status, context.raw).toBe(401);
      expect(context.body.error.code).toBe('invalid_session_token');
      expect((await client.call('POST', '/v1/sessions/refresh', { token })).status).toBe(401);
    }
  });
});
