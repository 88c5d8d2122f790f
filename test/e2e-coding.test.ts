import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testClient, type TestClient } from './helpers/client.js';
import { startHarness, type Harness } from './helpers/harness.js';

let h: Harness;
let call: TestClient['call'];

beforeAll(async () => {
  h = await startHarness({ env: { PREP_PUBLIC_URL: 'http://localhost:8080' } });
  call = testClient(h, { baseUrl: await h.app.listen({ port: 0, host: '127.0.0.1' }) }).call;
});
afterAll(() => h.close());

describe('a coding test end to end, over HTTP', () => {
  it('create candidate → assign → launch link → exchange → start → timer', async () => {
    const key = h.org.keys.secret_test;
    const candidate = await call('POST', '/v1/candidates', { key, body: { email: 'grace@example.com', name: 'Grace Hopper' } });
    expect(candidate.status).toBe(201);

    const tests = await call('GET', '/v1/coding-tests?difficulty=medium', { key });
    expect(tests.status).toBe(200);
    expect(tests.body.total_count).toBeGreaterThan(0);
    const test = tests.body.data.find((t: any) => t.duration_minutes !== null);
    expect(test).toBeDefined();

    const assigned = await call('POST', '/v1/coding-sessions', { key, body: { candidate_id: candidate.body.id, coding_test_id: test.id } });
    expect(assigned.status).toBe(201);
    expect(assigned.body).toMatchObject({ status: 'assigned', resumed: false, started_at: null, candidate_id: candidate.body.id });
    expect(assigned.body.problems.length).toBe(test.slot_count);
    expect(JSON.stringify(assigned.body)).not.toMatch(/hidden_cases|expected_complexity|comparator/);

    const link = await call('POST', `/v1/coding-sessions/${assigned.body.id}/launch-link`, { key, body: { ttl_seconds: 3600 } });
    expect(link.status).toBe(201);
    const token = new URL(link.body.url).hash.replace('#token=', '');
    expect(token.length).toBeGreaterThanOrEqual(43);

    const exchanged = await call('POST', '/v1/launch/exchange', { body: { token } });
    expect(exchanged.status).toBe(201);
    expect(exchanged.body).toMatchObject({ object: 'session', subject_kind: 'coding', subject_id: assigned.body.id });
    const again = await call('POST', '/v1/launch/exchange', { body: { token } });
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe('invalid_launch_token');

    const session = exchanged.body.session_token;
    const origin = 'http://localhost:8080';
    const context = await call('GET', '/v1/session', { token: session, origin });
    expect(context.status).toBe(200);
    expect(context.body).toMatchObject({ subject_kind: 'coding', candidate: { name: 'Grace Hopper' }, round: { id: test.id }, status: 'assigned' });

    const before = await call('GET', `/v1/coding-sessions/${assigned.body.id}/timer`, { token: session, origin });
    expect(before.body).toMatchObject({ timed: true, remaining_seconds: test.duration_minutes * 60, status: 'assigned' });

    const started = await call('POST', `/v1/coding-sessions/${assigned.body.id}/start`, { token: session, origin });
    expect(started.status).toBe(200);
    expect(started.body.status).toBe('started');
    expect(started.body.started_at).toBeGreaterThan(0);

    h.clock.advance(90_000);
    const timer = await call('GET', `/v1/coding-sessions/${assigned.body.id}/timer`, { token: session, origin });
    expect(timer.status).toBe(200);
    expect(timer.body).toMatchObject({ timed: true, status: 'started', remaining_seconds: test.duration_minutes * 60 - 90 });
  });
});
