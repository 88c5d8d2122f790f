import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { App } from '../../src/app-types.js';
import { testClient } from '../helpers/client.js';
import type { Harness, Org } from '../helpers/harness.js';
import { interviewSuite, type InterviewKit } from '../helpers/interviews.js';

let h: Harness;
let kit: InterviewKit;
let org: Org;
/** A second server process on the same database (in this process, with its own channel hub and conversation). */
let other: App;
let otherUrl: string;

beforeAll(async () => {
  ({ h, kit, org } = await interviewSuite());
  other = (await buildApp({ config: h.config, db: h.db, clock: h.clock, logger: false })).app;
  await other.listen({ port: 0, host: '127.0.0.1' });
  otherUrl = `http://127.0.0.1:${(other.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await other.close();
  await h.close();
});

describe('review: a turn stored by another server process', () => {
  it('reaches the channel held by this one (docs: "within a second"; the row is read every 5 s)', async () => {
    const { interview, token, channel } = await kit.started(org.keys.secret_test);
    const api = testClient({ app: other } as never, { baseUrl: otherUrl });
    const shared = await api.ok('POST', `/v1/interviews/${interview.id}/code`, { token, body: { language: 'python', source: 'print(1)' } });
    // It comes with the connection's next read of the row (every 5 s, at a 1 s tick): up to 6 s after the connect.
    const seen = await channel.until(() => channel.turns.find((t) => t.seq === shared.turn), 'the code turn from the other process', 20_000).catch(() => null);
    expect(seen).not.toBeNull();
    await channel.close();
  });
});
