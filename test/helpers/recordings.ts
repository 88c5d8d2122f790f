import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserAvailable, launchBrowser } from './browser.js';

/** `bytes` cut into pieces of `size` bytes (boxes and elements split across pieces, as uploads cut them). */
export const cut = (bytes: Buffer, size: number): Buffer[] =>
  Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));

/** Everything a joiner (joinWebmStreams, joinMp4Streams) makes of `pieces`, in one buffer. */
export async function joinAll(join: (pieces: AsyncIterable<Buffer>) => AsyncIterable<Buffer>, pieces: Buffer[]): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const part of join((async function* () { yield* pieces; })())) out.push(part);
  return Buffer.concat(out);
}

/** A recording played through in an <audio> element of `page` (muted, 8× speed): its duration and the furthest time it reached. */
export const playedInChromium = (page: Page, file: Buffer, type: string) => page.evaluate(`(async (b64) => {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const audio = new Audio(URL.createObjectURL(new Blob([bytes], { type: ${JSON.stringify(type)} })));
  audio.muted = true;
  audio.playbackRate = 8;
  let reached = 0;
  audio.ontimeupdate = () => { reached = Math.max(reached, audio.currentTime); };
  await audio.play();
  await new Promise((resolve, reject) => { audio.onended = resolve; audio.onerror = () => reject(new Error(audio.error?.message)); });
  return { duration: audio.duration, reached: Math.max(reached, audio.currentTime) };
})(${JSON.stringify(file.toString('base64'))})`) as Promise<{ duration: number; reached: number }>;

/**
 * What every joiner of recorder streams promises, run against two recordings of its container made by Chromium's
 * MediaRecorder (`a`, then `b` as a reloaded tab starts it over): a single recording passes through unchanged however
 * it was cut, bytes of another kind pass through as they are, hostile bytes never make it throw or grow the recording
 * (beyond `slack` bytes), and Chromium plays the joined recording as long as both where the bytes back to back played
 * as long as the first.
 */
export function joinerContract(name: string, options: {
  join: (pieces: AsyncIterable<Buffer>) => AsyncIterable<Buffer>; a: Buffer; b: Buffer; type: string; headerBytes: number; slack: number;
}) {
  const { a, b } = options;
  const join = (pieces: Buffer[]) => joinAll(options.join, pieces);
  describe(`${name}: the joiners' contract`, () => {
    it('passes a single recording through unchanged, however it was cut', async () => {
      for (const size of [a.length, 16_384, 1000, 7]) expect((await join(cut(a, size))).equals(a)).toBe(true);
    });

    it('lets bytes of another kind, and a recording cut off mid-piece, through as they are', async () => {
      const junk = Buffer.from('not a recording at all');
      expect((await join([junk])).equals(junk)).toBe(true);
      const truncated = a.subarray(0, a.length - 5); // the tab closed mid-piece
      expect((await join([truncated])).equals(truncated)).toBe(true);
    });

    it('never throws on hostile pieces: a recording with bytes changed anywhere still comes out, no longer than what went in', async () => {
      let seed = 11;
      const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
      for (let round = 0; round < 300; round++) {
        const bad = Buffer.from(round % 2 ? a : b);
        // Two rounds in three change the headers, where a joiner reads the most.
        for (let i = 0; i < 1 + round % 5; i++) bad[Math.floor(random() * Math.min(bad.length, round % 3 ? options.headerBytes : bad.length))] = Math.floor(random() * 256);
        const out = await join([...cut(bad, 5000), ...cut(round % 2 ? b : a, 5000)]);
        expect(out.length).toBeLessThanOrEqual(a.length + b.length + options.slack);
      }
    });

    it.skipIf(!browserAvailable)('Chromium plays the joined recording on one timeline as long as both; the bytes back to back showed only the first\'s length', async () => {
      const browser = await launchBrowser(['--autoplay-policy=no-user-gesture-required']);
      try {
        const page = await browser.newPage();
        const play = (file: Buffer) => playedInChromium(page, file, options.type);
        const [pa, pb] = [await play(a), await play(b)];
        expect(pa.duration).toBeGreaterThan(2.5);
        const backToBack = await play(Buffer.concat([a, b]));
        expect(backToBack.duration).toBeCloseTo(pa.duration, 1); // what joining the bytes gave: the second part off the timeline
        const played = await play(await join([a, b]));
        // Both lengths (within one block or sample, as the player counts the first recording's last one).
        for (const seconds of [played.duration, played.reached]) expect(Math.abs(seconds - (pa.duration + pb.duration))).toBeLessThanOrEqual(0.1);
      } finally {
        await browser.close();
      }
    }, 60_000);
  });
}

/**
 * The most heap (past what it was before, after a garbage collection) held while `join` has just handed out a part:
 * what the joiner keeps for the piece it is reading (a part's bytes are outside the heap).
 */
export async function heapHeldWhileJoining(join: (pieces: AsyncIterable<Buffer>) => AsyncIterable<Buffer>, pieces: Buffer[]): Promise<number> {
  v8.setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  const before = process.memoryUsage().heapUsed;
  let most = 0;
  for await (const part of join((async function* () { yield* pieces; })())) {
    void part;
    gc();
    most = Math.max(most, process.memoryUsage().heapUsed - before);
  }
  return most;
}
