import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { joinWebmStreams } from '../../src/storage/webm-join.js';
import { cut, heapHeldWhileJoining, joinAll, joinerContract } from '../helpers/recordings.js';

// Two recordings Chromium's MediaRecorder made of its fake microphone (Opus in WebM, 3.2 s and 2.5 s), as a tab that
// reloads mid-interview makes them: the second starts over with its own header and clusters from time 0.
const a = readFileSync(new URL('../fixtures/recordings/chromium-a.webm', import.meta.url));
const b = readFileSync(new URL('../fixtures/recordings/chromium-b.webm', import.meta.url));

const join = (pieces: Buffer[]) => joinAll(joinWebmStreams, pieces);

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
});

describe('joinWebmStreams on hostile pieces', () => {
  // Was a defect (a hostile review of storage): every element read went out as a buffer of its own, gathered until the
  // piece was read, so a 5 MiB piece of 2-byte elements held 2.6 million buffers, about 300 MB of heap (for 5 MiB of
  // a candidate's bytes). Elements that follow each other in the piece now go out as one buffer.
  it('holds little heap for a piece of millions of tiny elements', async () => {
    const tiny = Buffer.alloc(5 * 1_048_576);
    for (let i = 0; i < tiny.length; i += 2) tiny.set([0xec, 0x80], i); // Void elements of no data
    const held = await heapHeldWhileJoining(joinWebmStreams, [a, tiny, tiny]);
    expect(held).toBeLessThan(32 * 1_048_576);
    expect((await join([a, tiny])).equals(Buffer.concat([a, tiny]))).toBe(true);
  });
});

joinerContract('joinWebmStreams', { join: joinWebmStreams, a, b, type: 'audio/webm', headerBytes: 400, slack: 64 }); // later clusters' timecodes may take a few bytes more
