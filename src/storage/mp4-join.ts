import { emit, joinPieces, type Reading } from './pieces-join.js';

/**
 * One MP4 recording from the pieces of several: the counterpart of webm-join.ts for the fragmented MP4 that Safari's
 * (and Chromium's) MediaRecorder writes: `ftyp`, `moov` (the tracks, no samples), then `moof` + `mdat` fragments,
 * each `moof` giving its fragment's first decode time (`tfdt`). A reload of the room starts a new recorder, whose
 * stream begins again with `ftyp` and `moov`, and fragments from time 0; joined as plain bytes, players stop at the
 * second `moov`. Here a later stream's fragments follow the first's: its `ftyp` and `moov` are dropped, and in each of
 * its `moof` the decode time moves past the end of what came before, the sequence number carries on and the track
 * ids become the first stream's. No box changes size, so the fragments' data offsets (from their `moof`) still hold,
 * and an `mdat` goes through as it comes, never held.
 *
 * A later stream whose tracks differ from the first's (handler, timescale, sample description) ends the recording
 * where it begins; so does one whose fragments cannot be moved (no `tfdt`, data at absolute file offsets, a 32-bit
 * time that would overflow). Bytes that do not parse as boxes go out as they are, as before.
 */

/** A box other than `mdat` is read whole before it goes on: MediaRecorder's are at most a few kilobytes. */
const BOX_MAX_BYTES = 1_048_576;
const UINT32_MAX = 0xffff_ffff;

interface BoxHeader { type: string; header: number; size: number }

/** The box starting at `at`: its type, header length and whole size; null when more bytes are needed. */
function boxAt(buf: Buffer, at: number): BoxHeader | null | 'bad' {
  if (at + 8 > buf.length) return null;
  let size = buf.readUInt32BE(at);
  let header = 8;
  if (size === 1) {
    if (at + 16 > buf.length) return null;
    const large = buf.readBigUInt64BE(at + 8);
    if (large > BigInt(Number.MAX_SAFE_INTEGER)) return 'bad';
    size = Number(large);
    header = 16;
  }
  // Size 0 ("to the end of the file") cannot be streamed here; MediaRecorder writes every size.
  if (size < header) return 'bad';
  for (let i = at + 4; i < at + 8; i++) if (buf[i]! < 0x20 || buf[i]! > 0x7e) return 'bad';
  return { type: buf.toString('latin1', at + 4, at + 8), header, size };
}

interface Child { type: string; start: number; payload: Buffer }

/** The boxes inside a container's payload; null when they do not parse. */
function childBoxes(data: Buffer): Child[] | null {
  const out: Child[] = [];
  for (let at = 0; at < data.length;) {
    const box = boxAt(data, at);
    if (!box || box === 'bad' || at + box.size > data.length) return null;
    out.push({ type: box.type, start: at, payload: data.subarray(at + box.header, at + box.size) });
    at += box.size;
  }
  return out;
}

const childOf = (data: Buffer | undefined, type: string): Buffer | undefined => (data ? childBoxes(data)?.find((c) => c.type === type)?.payload : undefined);

interface Track {
  id: number;
  timescale: number;
  /** What must match for another stream's samples to play under this track. */
  signature: string;
  /** `trex`'s default sample duration. */
  defaultDuration: number;
}

/** The tracks a `moov` declares, in order; null when it does not parse. */
function tracksOf(moov: Buffer): Track[] | null {
  try {
    const boxes = childBoxes(moov);
    if (!boxes) return null;
    const defaults = new Map<number, number>();
    for (const trex of childBoxes(childOf(moov, 'mvex') ?? Buffer.alloc(0))?.filter((c) => c.type === 'trex') ?? []) {
      defaults.set(trex.payload.readUInt32BE(4), trex.payload.readUInt32BE(12));
    }
    const tracks: Track[] = [];
    for (const trak of boxes.filter((b) => b.type === 'trak')) {
      const tkhd = childOf(trak.payload, 'tkhd');
      const mdia = childOf(trak.payload, 'mdia');
      const mdhd = childOf(mdia, 'mdhd');
      const hdlr = childOf(mdia, 'hdlr');
      const stsd = childOf(childOf(childOf(mdia, 'minf'), 'stbl'), 'stsd');
      if (!tkhd || !mdhd || !hdlr || !stsd) return null;
      const id = tkhd.readUInt32BE(tkhd[0] === 1 ? 20 : 12);
      const timescale = mdhd.readUInt32BE(mdhd[0] === 1 ? 20 : 12);
      if (timescale === 0) return null;
      tracks.push({ id, timescale, signature: `${hdlr.toString('latin1', 8, 12)}/${timescale}/${stsd.toString('hex')}`, defaultDuration: defaults.get(id) ?? 0 });
    }
    return tracks.length > 0 ? tracks : null;
  } catch {
    return null; // a field past the end of its box
  }
}

const trackIndexes = new WeakMap<Track[], Map<number, number>>();

/**
 * The index in `tracks` of the (first) track with this id, or -1: from a map made once per `moov`, as a `moof` of a
 * megabyte may hold 25,000 track fragments and a `moov` 9,000 tracks (searched in turn, a minute of CPU per 20 MiB).
 */
function trackIndex(tracks: Track[], id: number): number {
  let index = trackIndexes.get(tracks);
  if (!index) {
    const made = new Map<number, number>();
    tracks.forEach((t, i) => { if (!made.has(t.id)) made.set(t.id, i); });
    trackIndexes.set(tracks, (index = made));
  }
  return index.get(id) ?? -1;
}

/** A fragment as read (and, for a later stream, rewritten): its sequence number and where each track's samples end. */
interface Fragment { bytes: Buffer; sequence: number; ends: Array<{ track: number; end: number }> }

/**
 * Reads a `moof` (whole box bytes; `header` its header length). With `move`, a copy is rewritten: sequence number,
 * each track fragment's track id (`move.track` maps a later stream's id to the index of the first stream's track) and
 * decode time (plus `move.offsets` of that track). `tracks`: the tracks the ids are looked up in. Null when the
 * fragment cannot be read, or moved.
 */
function fragment(moof: Buffer, header: number, tracks: Track[], move: { sequence: number; track: Map<number, number>; offsets: number[] } | null): Fragment | null {
  try {
    const bytes = move ? Buffer.from(moof) : moof;
    const payload = bytes.subarray(header);
    const boxes = childBoxes(payload);
    const mfhd = boxes?.find((b) => b.type === 'mfhd');
    if (!boxes || !mfhd) return null;
    if (move) mfhd.payload.writeUInt32BE(move.sequence, 4);
    const ends: Fragment['ends'] = [];
    for (const traf of boxes.filter((b) => b.type === 'traf')) {
      const parts = childBoxes(traf.payload);
      const tfhd = parts?.find((p) => p.type === 'tfhd')?.payload;
      const tfdt = parts?.find((p) => p.type === 'tfdt')?.payload;
      if (!parts || !tfhd || !tfdt) return null;
      const flags = tfhd.readUIntBE(1, 3);
      if (move && flags & 0x01) return null; // data at absolute offsets: dropping the later stream's headers would break them
      const index = move ? move.track.get(tfhd.readUInt32BE(4)) : trackIndex(tracks, tfhd.readUInt32BE(4));
      if (index === undefined || index < 0) return null;
      const track = tracks[index]!;
      let at = 8 + (flags & 0x01 ? 8 : 0) + (flags & 0x02 ? 4 : 0);
      const defaultDuration = flags & 0x08 ? tfhd.readUInt32BE(at) : track.defaultDuration;
      const wide = tfdt[0] === 1;
      let base = wide ? Number(tfdt.readBigUInt64BE(4)) : tfdt.readUInt32BE(4);
      if (move) {
        tfhd.writeUInt32BE(track.id, 4);
        base += move.offsets[index]!;
        if (wide) tfdt.writeBigUInt64BE(BigInt(base), 4);
        else if (base > UINT32_MAX) return null;
        else tfdt.writeUInt32BE(base, 4);
      }
      let duration = 0;
      for (const trun of parts.filter((p) => p.type === 'trun').map((p) => p.payload)) {
        const runFlags = trun.readUIntBE(1, 3);
        const count = trun.readUInt32BE(4);
        at = 8 + (runFlags & 0x01 ? 4 : 0) + (runFlags & 0x04 ? 4 : 0);
        const stride = 4 * [0x100, 0x200, 0x400, 0x800].filter((f) => runFlags & f).length;
        if (at + count * stride > trun.length) return null;
        if (!(runFlags & 0x100)) duration += count * defaultDuration;
        else for (let i = 0; i < count; i++) duration += trun.readUInt32BE(at + i * stride);
      }
      ends.push({ track: index, end: base + duration });
    }
    return { bytes, sequence: mfhd.payload.readUInt32BE(4), ends };
  } catch {
    return null;
  }
}

/**
 * The pieces of an MP4 recording, with any later streams appended to the first (see above). Yields as it reads: at
 * most a piece and one box (never an `mdat`) are held.
 */
export async function* joinMp4Streams(pieces: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let stream = -1; // which stream the bytes belong to: 0 the first
  let tracks: Track[] | null = null; // the first stream's
  let timed = true; // every fragment of the first stream said where it ends
  const ends: number[] = []; // per track of the first stream: where its samples end so far
  let sequence = 0;
  let later: { track: Map<number, number>; offsets: number[] } | null = null; // the current later stream's mapping
  let mdatLeft = 0; // bytes of an mdat still to go through
  let compatible = true; // false once a later stream cannot be appended: the recording ends there

  /** The later stream whose `moov` this is, placed after everything so far; null when it cannot be. */
  const placeAfter = (moov: Buffer): typeof later => {
    const theirs = tracksOf(moov);
    if (!tracks || !timed || !theirs || theirs.length !== tracks.length || theirs.some((t, i) => t.signature !== tracks![i]!.signature)) return null;
    // Every track starts again at once, after the track that ran longest (a gap in the others keeps them in step).
    const seconds = Math.max(0, ...tracks.map((t, i) => (ends[i] ?? 0) / t.timescale));
    const offsets = tracks.map((t, i) => Math.max(ends[i] ?? 0, Math.ceil(seconds * t.timescale - 1e-6)));
    return { track: new Map(theirs.map((t, i) => [t.id, i])), offsets };
  };

  const noteEnds = (f: Fragment) => {
    for (const { track, end } of f.ends) ends[track] = Math.max(ends[track] ?? 0, end);
  };

  /** Reads what it can of `buf` (see joinPieces). */
  const read = (buf: Buffer): Reading => {
    const out: Buffer[] = [];
    let at = 0;
    for (;;) {
      if (mdatLeft > 0) {
        const n = Math.min(mdatLeft, buf.length - at);
        if (n === 0) break;
        emit(out, buf.subarray(at, at + n));
        at += n;
        mdatLeft -= n;
        continue;
      }
      const box = boxAt(buf, at);
      if (box === null) break;
      if (box === 'bad' || (box.type !== 'mdat' && box.size > BOX_MAX_BYTES) || (stream < 0 && box.type !== 'ftyp')) return { out, used: at, next: 'raw' };
      if (box.type === 'mdat') {
        if (at + box.header > buf.length) break;
        emit(out, buf.subarray(at, at + box.header));
        at += box.header;
        mdatLeft = box.size - box.header;
        continue;
      }
      if (at + box.size > buf.length) break;
      const bytes = buf.subarray(at, at + box.size);
      at += box.size;
      if (box.type === 'ftyp') {
        stream++;
        later = null;
        if (stream === 0) emit(out, bytes);
        continue;
      }
      if (stream === 0) {
        emit(out, bytes);
        if (box.type === 'moov') tracks = tracksOf(bytes.subarray(box.header));
        else if (box.type === 'moof') {
          const read = tracks ? fragment(bytes, box.header, tracks, null) : null;
          if (!read) timed = false;
          else {
            sequence = Math.max(sequence, read.sequence);
            noteEnds(read);
          }
        }
        continue;
      }
      // A later stream: its fragments go on, moved in time; its other boxes (ftyp, moov, styp, sidx …) are dropped.
      if (box.type === 'moov') {
        later = placeAfter(bytes.subarray(box.header));
        if (!later) compatible = false;
      } else if (box.type === 'moof') {
        const moved = later ? fragment(bytes, box.header, tracks!, { sequence: sequence + 1, ...later }) : null;
        if (!moved) compatible = false;
        else {
          sequence++;
          noteEnds(moved);
          emit(out, moved.bytes);
        }
      }
      if (!compatible) return { out, used: at, next: 'end' }; // nothing of this stream, or after it, is written
    }
    return { out, used: at, next: 'more' };
  };
  yield* joinPieces(pieces, read, () => stream <= 0); // a cut-off last box of the first stream (the tab closed mid-piece) goes out, as before
}
