import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { joinWebmStreams } from '../../src/storage/webm-join.js';
import { browserAvailable, launchBrowser } from '../helpers/browser.js';

// Two recordings Chromium's MediaRecorder made of its fake microphone (Opus in WebM, 3.2 s and 2.5 s), as a tab that
// reloads mid-interview makes them: the second starts over with its own header and clusters from time 0.
const a = readFileSync(new URL('../fixtures/recordings/chromium-a.webm', import.meta.url));
const b = readFileSync(new URL('../fixtures/recordings/chromium-b.webm', import.meta.url));

/** `bytes` cut into pieces of `size` bytes (elements split across pieces, as uploads cut them). */
const cut = (bytes: Buffer, size: number) => Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));

async function join(pieces: Buffer[]): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const part of joinWebmStreams((async function* () { yield* pieces; })())) out.push(part);
  return Buffer.concat(out);
}

/** A flat reading of a WebM file as MediaRecorder writes it: headers, cluster timecodes, and every block's time and bytes. */
function read(file: Buffer) {
  const found = { ebml: 0, segments: 0, clusters: [] as number[], blocks: [] as Array<{ at: number; payload: string }> };
  let cluster = 0;
  for (let at = 0; at < file.length;) {
    const idLength = Math.clz32(file[at]!) - 23;
    const id = file.readUIntBE(at, idLength);
    const sizeLength = Math.clz32(file[at + idLength]!) - 23;
    let size = file[at + idLength]! & ((0x80 >> (sizeLength - 1)) - 1);
    let unknown = size === (0x80 >> (sizeLength - 1)) - 1;
    for (let i = 1; i < sizeLength; i++) { size = size * 256 + file[at + idLength + i]!; if (file[at + idLength + i] !== 0xff) unknown = false; }
    const data = at + idLength + sizeLength;
    if (id === 0x18538067 || id === 0x1f43b675) {
      if (id === 0x18538067) found.segments++;
      expect(unknown).toBe(true);
      at = data;
      continue;
    }
    if (id === 0x1a45dfa3) found.ebml++;
    if (id === 0xe7) found.clusters.push((cluster = file.readUIntBE(data, size)));
    if (id === 0xa3) found.blocks.push({ at: cluster + file.readInt16BE(data + 1), payload: file.subarray(data + 3, data + size).toString('hex') });
    at = data + size;
  }
  return found;
}

describe('joinWebmStreams', () => {
  it('passes a single recording through unchanged, however it was cut', async () => {
    for (const size of [a.length, 16_384, 1000, 7]) expect((await join(cut(a, size))).equals(a)).toBe(true);
  });

  it('appends a second recording\'s clusters to the first, after it in time, with one header', async () => {
    const [ra, rb] = [read(a), read(b)];
    const joined = await join([...cut(a, 9000), ...cut(b, 9000)]);
    const r = read(joined);
    expect(r.ebml).toBe(1);
    expect(r.segments).toBe(1);
    expect(r.blocks.map((x) => x.payload)).toEqual([...ra.blocks, ...rb.blocks].map((x) => x.payload)); // every frame, in order
    const times = r.blocks.map((x) => x.at);
    expect(times.every((t, i) => i === 0 || t > times[i - 1]!)).toBe(true);
    // The second recording starts one block after the first one's last (Chromium puts 60 ms of Opus in a block).
    const step = ra.blocks.at(-1)!.at - ra.blocks.at(-2)!.at;
    const start = ra.blocks.at(-1)!.at + step;
    expect(times[ra.blocks.length]).toBe(start);
    expect(times.at(-1)).toBe(start + rb.blocks.at(-1)!.at);
    expect(r.clusters).toEqual([...ra.clusters, ...rb.clusters.map((c) => c + start)]);
    // The first recording's bytes are untouched, and the cut does not matter.
    expect(joined.subarray(0, a.length).equals(a)).toBe(true);
    expect((await join([a, b])).equals(joined)).toBe(true);
    expect((await join([...cut(a, 333), ...cut(b, 4096)])).equals(joined)).toBe(true);
  });

  it('ends the recording where a later stream begins that the first one\'s tracks cannot play', async () => {
    const other = Buffer.from(b);
    const rate = other.indexOf(Buffer.from('b584473b8000', 'hex')); // SamplingFrequency 48000
    expect(rate).toBeGreaterThan(0);
    other.writeUInt16BE(0x46fa, rate + 3); // 32000 Hz: not the same track
    expect((await join([a, other])).equals(a)).toBe(true);
  });

  it('lets bytes that are not WebM through as they are', async () => {
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
      for (let i = 0; i < 1 + round % 5; i++) bad[Math.floor(random() * Math.min(bad.length, round % 3 ? 400 : bad.length))] = Math.floor(random() * 256);
      const joined = await join([...cut(bad, 5000), ...cut(round % 2 ? b : a, 5000)]);
      expect(joined.length).toBeLessThanOrEqual(a.length + b.length + 64); // later clusters' timecodes may take a few bytes more
    }
  });

  it.skipIf(!browserAvailable)('Chromium plays the joined recording on one timeline as long as both; the bytes back to back showed only the first\'s length', async () => {
    const browser = await launchBrowser(['--autoplay-policy=no-user-gesture-required']);
    try {
      const page = await browser.newPage();
      /** Played through in an <audio> element (muted, 8× speed): its duration and the furthest time it reached. */
      const play = (file: Buffer) => page.evaluate(`(async (b64) => {
        const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        const audio = new Audio(URL.createObjectURL(new Blob([bytes], { type: 'audio/webm' })));
        audio.muted = true;
        audio.playbackRate = 8;
        let reached = 0;
        audio.ontimeupdate = () => { reached = Math.max(reached, audio.currentTime); };
        await audio.play();
        await new Promise((resolve, reject) => { audio.onended = resolve; audio.onerror = () => reject(new Error(audio.error?.message)); });
        return { duration: audio.duration, reached: Math.max(reached, audio.currentTime) };
      })(${JSON.stringify(file.toString('base64'))})`) as Promise<{ duration: number; reached: number }>;
      const [pa, pb] = [await play(a), await play(b)];
      expect(pa.duration).toBeGreaterThan(2.5);
      const backToBack = await play(Buffer.concat([a, b]));
      expect(backToBack.duration).toBeCloseTo(pa.duration, 1); // what joining the bytes gave: the second part off the timeline
      const joined = await play(await join([a, b]));
      // Both lengths, and the one block (60 ms) the first recording's last block lasts, as the player counts it.
      for (const seconds of [joined.duration, joined.reached]) expect(Math.abs(seconds - (pa.duration + pb.duration))).toBeLessThanOrEqual(0.1);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
