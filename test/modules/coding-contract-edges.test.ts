import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.js';
import { judgingKit } from '../helpers/judging.js';

let h: Harness;
let kit: ReturnType<typeof judgingKit>;
let key: string;

beforeAll(async () => {
  h = await startHarness({ env: { PREP_RATE_LIMIT: '100000' } });
  kit = judgingKit(h);
  key = h.org.keys.secret_test;
});
afterAll(() => h.close());

const url = (id: string, tail: string) => `/v1/coding-sessions/${id}/${tail}`;

describe('finalize after the time is up', () => {
  // Was a bug: a timed-out session answered report_status "ready" before its completion job had written the report,
  // while GET …/report still said report_not_ready.
  it('says report_status pending until the timed-out session is scored, then ready', async () => {
    const s = await kit.session(key, 'core-data-structures-screen');
    // The deadline a second away, so the candidate's token is still good when it passes.
    await h.db.kysely.updateTable('coding_sessions').set({ deadline_at: h.clock.now() + 1000 }).where('id', '=', s.id).execute();
    h.clock.advance(2000);
    const fin = await kit.call('POST', url(s.id, 'finalize'), { token: s.token });
    expect(fin.status, fin.raw).toBe(202);
    expect(fin.body.status).toBe('timed_out');
    const report = await kit.call('GET', url(s.id, 'report'), { key });
    expect(report.body.error?.code).toBe('report_not_ready');
    expect(fin.body.report_status).toBe('pending');

    await kit.settle();
    expect((await kit.call('GET', url(s.id, 'report'), { key })).status).toBe(200);
    const again = await kit.call('POST', url(s.id, 'finalize'), { token: s.token });
    expect(again.body).toMatchObject({ status: 'timed_out', report_status: 'ready' });
  }, 60_000);
});
