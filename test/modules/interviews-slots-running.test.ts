import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.js';
import { interviewKit, type InterviewKit } from '../helpers/interviews.js';

let h: Harness;
let kit: InterviewKit;
beforeAll(async () => {
  h = await startHarness({ env: { PREP_RATE_LIMIT: '100000' } });
  kit = await interviewKit(h);
});
afterAll(async () => { await h.close(); });

describe('review: slots and a running interview that was never booked', () => {
  it('counts an interview running now (joined without scheduled_at) against the windows it overlaps', async () => {
    const org = await kit.organization('Slots');
    await h.db.kysely.updateTable('organizations').set({ max_concurrent_interviews: 1 }).where('id', '=', org.id).execute();
    const k = org.keys.secret_live;
    const running = await kit.create(k, { duration_minutes: 60 });
    await kit.join(await kit.token(k, running.id), running.id);
    const slots = await kit.client.ok('GET', '/v1/interviews/slots?limit=1', { key: k }, 200);
    // The one place is taken for the next hour: docs/interviews.md says "minus the scheduled or running interviews that overlap".
    expect(slots.data[0].available).toBe(0);
  });
});
