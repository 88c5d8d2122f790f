import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { joinMp4Streams } from '../../src/storage/mp4-join.js';
import { browserAvailable, launchBrowser } from '../helpers/browser.js';

// Two recordings Chromium's MediaRecorder made as `audio/mp4` (Opus in fragmented MP4, 3 s and 2.5 s of a tone, one
// fragment a second), as a tab that reloads mid-interview makes them: the second starts over with its own ftyp and
// moov, and fragments from time 0. Safari writes the same layout (with AAC).
const a = readFileSync(new URL('../fixtures/recordings/chromium-a.mp4', import.meta.url));
const b = readFileSync(new URL('../fixtures/recordings/chromium-b.mp4', import.meta.url));

/** `bytes` cut into pieces of `size` bytes (boxes split across pieces, as uploads cut them). */
const cut = (bytes: Buffer, size: number) => Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));

async function join(pieces: Buffer[]): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const part of joinMp4Streams((async function* () { yield* pieces; })())) out.push(part);
  return Buffer.concat(out);
}

/** A flat reading of a fragmented MP4: top-level boxes, and per fragment its sequence, track, decode time, sample durations and data. */
function read(file: Buffer) {
  const found = { top: [] as string[], fragments: [] as Array<{ sequence: number; track: number; time: number; durations: number[]; data: string }> };
  for (let at = 0; at < file.length;) {
    const size = file.readUInt32BE(at);
    const type = file.toString('latin1', at + 4, at + 8);
    found.top.push(type);
    if (type === 'moof') {
      const traf = at + 8 + 16; // after mfhd
      const tfhd = traf + 8;
      const tfdt = tfhd + file.readUInt32BE(tfhd);
      const trun = tfdt + file.readUInt32BE(tfdt);
      expect(file.toString('latin1', tfdt + 4, tfdt + 8)).toBe('tfdt');
      expect(file.toString('latin1', trun + 4, trun + 8)).toBe('trun');
      const count = file.readUInt32BE(trun + 12);
      const durations = Array.from({ length: count }, (_, i) => file.readUInt32BE(trun + 20 + i * 8)); // flags 0x301: offset, then duration + size per sample
      const mdat = at + size;
      found.fragments.push({
        sequence: file.readUInt32BE(at + 8 + 12), track: file.readUInt32BE(tfhd + 12), time: Number(file.readBigUInt64BE(tfdt + 12)), durations,
        data: file.subarray(mdat + 8, mdat + file.readUInt32BE(mdat)).toString('hex'),
      });
    }
    at += size;
  }
  return found;
}

describe('joinMp4Streams', () => {
  it('passes a single recording through unchanged, however it was cut', async () => {
    for (const size of [a.length, 16_384, 1000, 7]) expect((await join(cut(a, size))).equals(a)).toBe(true);
  });

  it('appends a second recording\'s fragments to the first, after it in time, with one ftyp and moov', async () => {
    const [ra, rb] = [read(a), read(b)];
    expect(rb.fragments[0]!.time).toBe(0);
    const joined = await join([...cut(a, 9000), ...cut(b, 9000)]);
    const r = read(joined);
    expect(r.top.filter((t) => t === 'ftyp' || t === 'moov')).toEqual(['ftyp', 'moov']);
    expect(r.fragments.map((f) => f.data)).toEqual([...ra.fragments, ...rb.fragments].map((f) => f.data)); // every sample, in order
    expect(r.fragments.map((f) => f.sequence)).toEqual(r.fragments.map((_, i) => i + 1));
    expect(new Set(r.fragments.map((f) => f.track))).toEqual(new Set([ra.fragments[0]!.track]));
    // The second recording starts where the first one's last sample ends, and keeps its own spacing.
    const last = ra.fragments.at(-1)!;
    const end = last.time + last.durations.reduce((x, y) => x + y, 0);
    expect(r.fragments.slice(ra.fragments.length).map((f) => f.time)).toEqual(rb.fragments.map((f) => f.time + end));
    // The first recording's bytes are untouched, and the cut does not matter.
    expect(joined.subarray(0, a.length).equals(a)).toBe(true);
    expect((await join([a, b])).equals(joined)).toBe(true);
    expect((await join([...cut(a, 333), ...cut(b, 4096)])).equals(joined)).toBe(true);
    // A third stream (a second reload) goes on after both.
    const three = read(await join([a, b, b]));
    expect(three.fragments).toHaveLength(ra.fragments.length + 2 * rb.fragments.length);
    expect(three.fragments.at(-1)!.time).toBeGreaterThan(r.fragments.at(-1)!.time);
  });

  it('ends the recording where a later stream begins that the first one\'s tracks cannot play', async () => {
    const other = Buffer.from(b);
    const mdhd = other.indexOf(Buffer.from('mdhd'));
    const version = other[mdhd + 4];
    other.writeUInt32BE(44_100, mdhd + 4 + (version === 1 ? 20 : 12)); // another timescale: not the same track
    expect((await join([a, other])).equals(a)).toBe(true);
    const noTime = Buffer.from(b);
    noTime.write('free', noTime.indexOf(Buffer.from('tfdt')), 'latin1'); // a fragment that cannot be placed
    expect((await join([a, noTime])).equals(a)).toBe(true);
  });

  it('lets bytes that are not MP4 through as they are', async () => {
    const junk = Buffer.from('not a recording at all');
    expect((await join([junk])).equals(junk)).toBe(true);
    const truncated = a.subarray(0, a.length - 5); // the tab closed mid-piece
    expect((await join([truncated])).equals(truncated)).toBe(true);
  });

  it('never throws on hostile pieces: a recording with bytes changed anywhere still comes out, no longer than what went in', async () => {
    let seed = 17;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
    for (let round = 0; round < 300; round++) {
      const bad = Buffer.from(round % 2 ? a : b);
      for (let i = 0; i < 1 + round % 5; i++) bad[Math.floor(random() * Math.min(bad.length, round % 3 ? 1200 : bad.length))] = Math.floor(random() * 256);
      const joined = await join([...cut(bad, 5000), ...cut(round % 2 ? b : a, 5000)]);
      expect(joined.length).toBeLessThanOrEqual(a.length + b.length);
    }
  });

  it.skipIf(!browserAvailable)('Chromium plays the joined recording on one timeline as long as both; the bytes back to back showed only the first\'s length', async () => {
    const browser = await launchBrowser(['--autoplay-policy=no-user-gesture-required']);
    try {
      const page = await browser.newPage();
      /** Played through in an <audio> element (muted, 8× speed): its duration and the furthest time it reached. */
      const play = (file: Buffer) => page.evaluate(`(async (b64) => {
        const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        const audio = new Audio(URL.createObjectURL(new Blob([bytes], { type: 'audio/mp4' })));
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
      for (const seconds of [joined.duration, joined.reached]) expect(Math.abs(seconds - (pa.duration + pb.duration))).toBeLessThanOrEqual(0.1);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
