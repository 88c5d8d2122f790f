/** What a recording joiner made of the bytes it was given: what goes out, how many bytes it used, and what comes next. */
export interface Reading {
  out: Buffer[];
  used: number;
  /** 'more': the rest waits for the next piece; 'raw': the bytes stopped parsing, so the rest goes out as it is;
   * 'end': a later stream cannot be appended, so the recording ends here. */
  next: 'more' | 'raw' | 'end';
}

/**
 * Adds `bytes` to what goes out, as a wider view of the last buffer when it follows that one in memory: elements or
 * boxes read one after the other go out as one buffer. (One buffer each, a 5 MiB piece of 2-byte elements held 2.6
 * million of them, some 300 MB of heap, until the piece was read.)
 */
export function emit(out: Buffer[], bytes: Buffer): void {
  const last = out[out.length - 1];
  if (last && last.buffer === bytes.buffer && last.byteOffset + last.length === bytes.byteOffset) {
    out[out.length - 1] = Buffer.from(last.buffer, last.byteOffset, last.length + bytes.length);
  } else out.push(bytes);
}

/**
 * How both recording joiners (webm-join.ts, mp4-join.ts) take the pieces: the bytes a piece leaves unread wait for the
 * next, what `read` makes of them goes out as it reads, and after 'raw' every later piece goes out as it is. At the
 * end, bytes still unread (an element or box the tab closed in the middle of) go out as they are when
 * `keepUnfinished()` says so.
 */
export async function* joinPieces(pieces: AsyncIterable<Buffer>, read: (buf: Buffer) => Reading, keepUnfinished: () => boolean): AsyncGenerator<Buffer> {
  let buf: Buffer = Buffer.alloc(0);
  let raw = false;
  for await (const piece of pieces) {
    if (raw) {
      yield piece;
      continue;
    }
    buf = buf.length === 0 ? piece : Buffer.concat([buf, piece]);
    const { out, used, next } = read(buf);
    if (out.length > 0) yield Buffer.concat(out);
    if (next === 'end') return;
    buf = buf.subarray(used);
    if (next === 'raw') {
      raw = true;
      if (buf.length > 0) yield Buffer.from(buf);
      buf = Buffer.alloc(0);
    }
  }
  if (buf.length > 0 && keepUnfinished()) yield Buffer.from(buf);
}
