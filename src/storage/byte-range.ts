/**
 * Which bytes of a stored object a GET answers with, from its `Range` header (RFC 9110 §14): one range is served as
 * 206, so players can seek in a recording and downloads can resume. Parsing is `range-parser`'s.
 * Anything this does not serve partially is answered whole (the RFC lets a server ignore Range): a malformed header,
 * several ranges (no multipart responses), or an `If-Range` (objects carry no validator to compare it with).
 */
import { combineRanges, parse } from 'range-parser';

export type ByteRange =
  | { kind: 'whole' }
  | { kind: 'part'; start: number; end: number } // `end` inclusive, as in Content-Range
  | { kind: 'unsatisfiable' };

export function byteRangeOf(header: string | undefined, ifRange: string | undefined, size: number): ByteRange {
  if (header === undefined || ifRange !== undefined) return { kind: 'whole' };
  const parsed = parse(size, header);
  if (parsed.type !== 'bytes' || parsed.code & 1) return { kind: 'whole' };
  if (parsed.ranges.length === 0) return size === 0 ? { kind: 'whole' } : { kind: 'unsatisfiable' };
  const ranges = combineRanges(parsed.ranges);
  if (ranges.length !== 1) return { kind: 'whole' };
  const [{ start, end }] = ranges;
  return start === 0 && end === size - 1 ? { kind: 'whole' } : { kind: 'part', start, end };
}
