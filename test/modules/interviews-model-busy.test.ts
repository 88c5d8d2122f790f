import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModel, type FakeModel } from '../helpers/fake-model.js';
import type { Harness, Org } from '../helpers/harness.js';
import { interviewSuite, type InterviewKit } from '../helpers/interviews.js';

let model: FakeModel;
let h: Harness;
let kit: InterviewKit;
let org: Org;

beforeAll(async () => {
  model = await startFakeModel(() => 'Hello.');
  // One model call at a time in this process (PREP_MODEL_CONCURRENCY; the default is 4, the default interview limit 10).
  ({ h, kit, org } = await interviewSuite({ ...model.env, PREP_RATE_LIMIT_MODEL: '100000', PREP_MODEL_CONCURRENCY: '1' }));
});
afterAll(async () => {
  await h.close();
  await model.close();
});

describe('review: a slow model with more interviews than model slots', () => {
  it('never keeps a candidate waiting much past the 20 s the docs promise ("the interview never stops for a model")', async () => {
    model.holding = true; // the model hangs: every call runs into the 20 s turn timeout
    const rooms = [];
    for (let i = 0; i < 2; i++) {
      const interview = await kit.create(org.keys.secret_test);
      const token = await kit.token(org.keys.secret_test, interview.id);
      await kit.join(token, interview.id);
      rooms.push(await kit.connect(token, interview.id));
    }
    const started = Date.now();
    const waits = await Promise.all(rooms.map(async (channel) => {
      await channel.interviewerTurn(0, 60_000);
      return Date.now() - started;
    }));
    for (const room of rooms) await room.close();
    expect(Math.max(...waits)).toBeLessThan(25_000);
  }, 90_000);
});
