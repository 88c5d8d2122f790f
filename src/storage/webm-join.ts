import { emit, joinPieces, type Reading } from './pieces-join.js';

/**
 * One WebM recording from the pieces of several. A candidate who reloads the room mid-interview starts a new
 * MediaRecorder, whose pieces carry on the numbering but begin a stream of their own (EBML header, segment, tracks,
 * clusters from time 0); joined as plain bytes, players stop at the second header. Here a later stream's clusters are
 * appended to the first stream's segment, their timecodes moved past what came before, and its headers dropped.
 *
 * MediaRecorder writes the segment and its clusters with unknown sizes, so appending clusters rewrites no size: the
 * bytes are read as a flat run of elements (a segment or cluster header opens, everything else is a whole element).
 * A later stream whose tracks (apart from their random UIDs) or timecode scale differ from the first's cannot be
 * appended: the recording ends where it begins. Bytes that do not parse as expected go out as they are, as before.
 */

const ID = {
  ebml: 0x1a45dfa3, segment: 0x18538067, cluster: 0x1f43b675, info: 0x1549a966, tracks: 0x1654ae6b,
  timecode: 0xe7, simpleBlock: 0xa3, blockGroup: 0xa0, block: 0xa1, timecodeScale: 0x2ad7b1, trackEntry: 0xae, trackUid: 0x73c5,
} as const;
/** Elements of a later stream that point into its own bytes (or say nothing about the sound): not carried over. */
const KEPT_IN_LATER_STREAMS = new Set<number>([ID.cluster, ID.timecode, ID.simpleBlock, ID.blockGroup]);
/**
 * A whole element is read into memory before it goes on: one larger than this is not what MediaRecorder writes (its
 * blocks are a few kilobytes), and the pieces are the candidate's bytes, so the rest then goes out as it is.
 */
const ELEMENT_MAX_BYTES = 1_048_576;
/** Timecodes are written in at most 6 bytes. */
const TIMECODE_MAX = 2 ** 48 - 1;
/** Opus frames are 20 ms: the step assumed after a stream's last block when it had only one. */
const DEFAULT_STEP = 20;

interface Vint { length: number; value: number; unknown: boolean }

/** An EBML variable-length integer at `at`: null when more bytes are needed, 'bad' when it cannot be one. */
function vint(buf: Buffer, at: number, keepMarker: boolean): Vint | null | 'bad' {
  if (at >= buf.length) return null;
  const first = buf[at]!;
  if (first === 0) return 'bad';
  const length = Math.clz32(first) - 23; // 1 for 1xxxxxxx … 8 for 00000001
  if (at + length > buf.length) return null;
  const marker = 0x80 >> (length - 1);
  let value = keepMarker ? first : first & (marker - 1);
  let unknown = !keepMarker && (first & (marker - 1)) === marker - 1;
  for (let i = 1; i < length; i++) {
    value = value * 256 + buf[at + i]!;
    if (buf[at + i] !== 0xff) unknown = false;
  }
  return { length, value, unknown };
}

interface Element { id: number; header: number; size: number; unknown: boolean }

/** The element starting at `at`: its id, header length and data size; null when more bytes are needed. */
function elementAt(buf: Buffer, at: number): Element | null | 'bad' {
  const id = vint(buf, at, true);
  if (id === null || id === 'bad' || id.length > 4) return id === null ? null : 'bad';
  const size = vint(buf, at + id.length, false);
  if (size === null || size === 'bad') return size;
  return { id: id.value, header: id.length + size.length, size: size.value, unknown: size.unknown };
}

const uint = (buf: Buffer) => (buf.length === 0 || buf.length > 6 ? 0 : buf.readUIntBE(0, buf.length));

/** The children of a master element's data, as [id, data] pairs; null when they do not parse. */
function children(data: Buffer): Array<[number, Buffer]> | null {
  const out: Array<[number, Buffer]> = [];
  for (let at = 0; at < data.length;) {
    const e = elementAt(data, at);
    if (!e || e === 'bad' || e.unknown || at + e.header + e.size > data.length) return null;
    out.push([e.id, data.subarray(at + e.header, at + e.header + e.size)]);
    at += e.header + e.size;
  }
  return out;
}

/** What must match for a later stream's blocks to play under the first stream's tracks: everything but the UIDs. */
function tracksSignature(data: Buffer): string | null {
  const entries = children(data);
  if (!entries) return null;
  const parts: string[] = [];
  for (const [id, entry] of entries) {
    if (id !== ID.trackEntry) continue;
    const fields = children(entry);
    if (!fields) return null;
    parts.push(fields.filter(([f]) => f !== ID.trackUid).map(([f, v]) => `${f.toString(16)}=${v.toString('hex')}`).join(','));
  }
  return parts.join(';');
}

function timecodeScaleOf(data: Buffer): number | null {
  const fields = children(data);
  if (!fields) return null;
  const scale = fields.find(([id]) => id === ID.timecodeScale);
  return scale ? uint(scale[1]) : 1_000_000;
}

/** A block's timecode relative to its cluster (SimpleBlock data, or a BlockGroup's Block). */
function blockRelative(id: number, data: Buffer): number | null {
  let block = data;
  if (id === ID.blockGroup) {
    const found = children(data)?.find(([c]) => c === ID.block);
    if (!found) return null;
    block = found[1];
  }
  const track = vint(block, 0, false);
  if (!track || track === 'bad' || block.length < track.length + 2) return null;
  return block.readInt16BE(track.length);
}

function timecodeElement(value: number): Buffer {
  let bytes = 1;
  while (bytes < 6 && value >= 2 ** (8 * bytes)) bytes++;
  const out = Buffer.alloc(2 + bytes);
  out[0] = ID.timecode;
  out[1] = 0x80 | bytes;
  out.writeUIntBE(value, 2, bytes);
  return out;
}

const UNKNOWN_SIZE = Buffer.from([0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
const CLUSTER_OPEN = Buffer.concat([Buffer.from([0x1f, 0x43, 0xb6, 0x75]), UNKNOWN_SIZE]);

/** The same header with its size marked unknown, in the same width (so nothing after it moves). */
function withUnknownSize(header: Buffer, idLength: number): Buffer {
  const out = Buffer.from(header);
  const width = header.length - idLength;
  out[idLength] = (2 << (8 - width)) - 1;
  out.fill(0xff, idLength + 1);
  return out;
}

/**
 * The pieces of a WebM recording, with any later streams appended to the first (see above). Yields as it reads: at
 * most a piece and one element are held.
 */
export async function* joinWebmStreams(pieces: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let stream = -1; // which stream the bytes belong to: 0 the first
  const first: { tracks: string | null; scale: number | null } = { tracks: null, scale: null };
  let offset = 0; // added to a later stream's timecodes
  let cluster = 0; // the current cluster's timecode, as written
  let end = 0; // the latest block time written
  let step = DEFAULT_STEP;
  let compatible = true; // false once a later stream cannot be appended: the recording ends there

  const noteBlock = (at: number) => {
    if (at > end) {
      if (at - end < 1000) step = at - end;
      end = at;
    }
  };

  /** Reads what it can of `buf` (see joinPieces). */
  const read = (buf: Buffer): Reading => {
    const out: Buffer[] = [];
    let at = 0;
    for (;;) {
      const e = elementAt(buf, at);
      if (e === null) break;
      const whole = e !== 'bad' && (e.id === ID.segment || e.id === ID.cluster || (!e.unknown && e.size <= ELEMENT_MAX_BYTES));
      if (e === 'bad' || !whole) return { out, used: at, next: 'raw' };
      const opens = e.id === ID.segment || e.id === ID.cluster;
      const length = opens ? e.header : e.header + e.size;
      if (at + length > buf.length) break;
      const bytes = buf.subarray(at, at + length);
      const data = bytes.subarray(e.header);
      at += length;

      if (e.id === ID.ebml) {
        stream++;
        if (stream > 0) offset = end + step;
        if (stream === 0) emit(out, bytes);
        continue;
      }
      if (stream < 0) return { out, used: at - length, next: 'raw' };
      if (stream === 0) {
        emit(out, e.id === ID.segment && !e.unknown ? withUnknownSize(bytes, idLength(bytes)) : bytes);
        if (e.id === ID.tracks) first.tracks = tracksSignature(data);
        else if (e.id === ID.info) first.scale = timecodeScaleOf(data);
        else if (e.id === ID.timecode) cluster = uint(data);
        else if (e.id === ID.simpleBlock || e.id === ID.blockGroup) {
          const relative = blockRelative(e.id, data);
          if (relative !== null) noteBlock(cluster + relative);
        }
        continue;
      }
      // A later stream: its clusters go on, moved in time; its headers are checked against the first's and dropped.
      if (e.id === ID.tracks && (first.tracks === null || tracksSignature(data) !== first.tracks)) compatible = false;
      else if (e.id === ID.info && timecodeScaleOf(data) !== first.scale) compatible = false;
      else if (!KEPT_IN_LATER_STREAMS.has(e.id)) continue;
      else if (e.id === ID.cluster) emit(out, CLUSTER_OPEN);
      else if (e.id === ID.timecode) {
        cluster = uint(data) + offset;
        if (cluster > TIMECODE_MAX) compatible = false;
        else emit(out, timecodeElement(cluster));
      } else {
        emit(out, bytes);
        const relative = blockRelative(e.id, data);
        if (relative !== null) noteBlock(cluster + relative);
      }
      if (!compatible) return { out, used: at, next: 'end' }; // nothing of this stream, or after it, is written
    }
    return { out, used: at, next: 'more' };
  };
  yield* joinPieces(pieces, read, () => true); // a cut-off last element (the tab closed mid-piece) goes out, as before
}

/** The length of the id at the start of an element's bytes. */
const idLength = (bytes: Buffer): number => Math.clz32(bytes[0]!) - 23;
