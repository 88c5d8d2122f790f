import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness, Org } from '../helpers/harness.js';
import { interviewSuite, type InterviewKit } from '../helpers/interviews.js';
import { until } from '../helpers/processes.js';

let h: Harness;
let kit: InterviewKit;
let org: Org;
const key = () => org.keys.secret_test;
// Long enough that a client that answers does so within one beat on a loaded machine (the client and the server share
// this process's event loop): about 1 ms here.
const HEARTBEAT_MS = 1000;

beforeAll(async () => {
  ({ h, kit, org } = await interviewSuite({ PREP_CHANNEL_HEARTBEAT_MS: String(HEARTBEAT_MS) }));
});
afterAll(async () => {
  await h.close();
});

describe('the conversation channel\'s heartbeat', () => {
  // Was a gap: a half-open connection, or a client that stopped reading (the server's messages piling up in its send
  // buffer), was kept, and read for every few seconds, until TCP gave up.
  it('cuts a connection that stops answering pings, and keeps one that answers', async () => {
    const quiet = await kit.started(key());
    const alive = await kit.started(key());
    (quiet.channel.socket as unknown as { _socket: { pause(): void } })._socket.pause(); // reads nothing, so answers no ping
    // Cut at its second beat (about 2 s); the one that answers has had the same beats.
    await until(() => !h.modules.channelHub.connections.has(quiet.interview.id), 20 * HEARTBEAT_MS);
    expect(h.modules.channelHub.connections.has(alive.interview.id)).toBe(true);
    // The interview is free for the candidate's next connection at once (no takeover wait).
    const again = await kit.connect(quiet.token, quiet.interview.id);
    await again.next('ready');
    await again.close();
    await alive.channel.answer('I led the migration of our billing system and measured the results every week.');
    await alive.channel.close();
  });

  // Was a gap: any pong counted as the answer to the heartbeat's ping, so a client that stopped reading (the server's
  // messages piling up in its buffer) but sent a pong of its own now and then was never cut. Only the pong that
  // echoes the ping's payload counts now, and a client has to read the ping to echo it.
  it('cuts a client that stops reading even if it sends pongs of its own', async () => {
    const { interview, channel } = await kit.started(key());
    (channel.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    const pongs = setInterval(() => channel.socket.pong(), HEARTBEAT_MS / 3);
    try {
      await until(() => !h.modules.channelHub.connections.has(interview.id), 20 * HEARTBEAT_MS);
      expect(h.modules.channelHub.connections.has(interview.id)).toBe(false);
    } finally {
      clearInterval(pongs);
    }
  });
});
