import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness, Org } from '../helpers/harness.js';
import { interviewSuite, type InterviewKit } from '../helpers/interviews.js';

let h: Harness;
let kit: InterviewKit;
let org: Org;
const key = () => org.keys.secret_test;

beforeAll(async () => {
  ({ h, kit, org } = await interviewSuite());
});
afterAll(async () => {
  await h.close();
});

/** A program that crashes with a NUL byte on the line of stderr the interviewer quotes. */
const CRASH_WITH_NUL = 'import sys\nsys.stderr.write("Error: bad\\x00input\\n")\nsys.exit(1)';

describe('review: a NUL byte in a run\'s stderr (PostgreSQL text refuses U+0000)', () => {
  it('the interviewer still reacts to the crashed run', async () => {
    const { interview, token, channel } = await kit.started(key(), { round_type: 'live-coding' });
    const shared = await kit.client.ok('POST', `/v1/interviews/${interview.id}/code`, { token, body: { language: 'python', source: CRASH_WITH_NUL, run: true } });
    expect(shared.run.status).toBe('runtime_error');
    const reaction = await channel.until(() => channel.turns.find((t) => t.speaker === 'interviewer' && t.seq > shared.turn), 'the reaction', 20_000).catch(() => null);
    expect(reaction).not.toBeNull();
    await channel.close();
  });

  it('an answer whose client id holds a NUL is refused as a bad parameter, not an internal error', async () => {
    const { channel } = await kit.started(key());
    channel.send({ type: 'answer', id: 'a\u0000b', text: 'At my last job I rebuilt our on-call rotation.' });
    const answer = await channel.until(() => channel.messages.find((m) => m.type === 'error' || (m.type === 'turn' && m.speaker === 'candidate')), 'an answer to it');
    if (answer.type === 'error') expect(answer.code).not.toBe('internal_error');
    await channel.close();
  });
});
