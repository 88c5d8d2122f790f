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

/** Runs `work`, then answers the promise rejections nobody handled meanwhile (each would take the server down). */
async function unhandledDuring(work: () => Promise<void>): Promise<unknown[]> {
  const rejections: unknown[] = [];
  const onRejection = (e: unknown) => rejections.push(e);
  process.on('unhandledRejection', onRejection);
  try {
    await work();
    await new Promise((r) => setTimeout(r, 100));
  } finally {
    process.off('unhandledRejection', onRejection);
  }
  return rejections;
}

describe('the conversation channel when the server fails', () => {
  // Was a bug: the wrap-up the channel asks for with a minute left was not awaited or caught, so a database error in
  // it rejected unhandled, and Node ends the process on an unhandled rejection: every interview on the server dropped.
  it('logs a wrap-up that fails instead of rejecting unhandled, and keeps the channel open', async () => {
    const { channel } = await kit.started(key());
    const conversation = h.modules.conversation;
    const nudge = conversation.nudge;
    let asked = 0;
    conversation.nudge = async () => { asked++; throw new Error('transient database error'); };
    try {
      const rejections = await unhandledDuring(async () => {
        h.clock.advance(250_000); // 50 s left of the test-mode five minutes: the channel asks for the wrap-up
        await channel.until(() => asked > 0, 'the wrap-up asked for', 5000);
      });
      expect(rejections).toEqual([]);
      expect(channel.closed).toBeNull();
    } finally {
      conversation.nudge = nudge;
    }
    await channel.close();
  });
});
