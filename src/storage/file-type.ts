/**
 * What a file is, read from its bytes (never from its name): the document kinds Prep accepts, and why anything else
 * is refused. ZIP containers are identified by their central directory, so a DOCX is told from any other ZIP and a
 * file that is both a PDF and a ZIP (a polyglot) is refused rather than guessed at.
 */
import { inflateRawSync } from 'node:zlib';

export type DocumentType = 'pdf' | 'docx' | 'text';

/** What a file is; a text file with its text, decoded once (decodeText). */
export type Sniffed = { type: 'pdf' } | { type: 'docx' } | { type: 'text'; text: string } | { type: null; reason: string };

export interface ZipEntry {
  name: string;
  compressedSize: number;
  uncompressedSize: number;
  /** 0 stored, 8 deflated. */
  method: number;
  localHeaderOffset: number;
}

const PDF_MAGIC = Buffer.from('%PDF-');
const PDF_END = Buffer.from('%%EOF');

/**
 * A PDF starts with its header, or (as readers allow) has it within the first KiB after some junk and ends with the
 * trailer's `%%EOF`: a text resume that mentions "%PDF-1.7" near its top is text.
 */
function looksLikePdf(bytes: Buffer): boolean {
  if (bytes.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC)) return true;
  return bytes.subarray(0, 1024).includes(PDF_MAGIC) && bytes.subarray(-1024).includes(PDF_END);
}
const ZIP_LOCAL = 0x04034b50;
const ZIP_END = 0x06054b50;
const OLE_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

/** The entries of a ZIP's central directory, or null when the bytes hold no consistent one. */
export function zipEntries(bytes: Buffer): ZipEntry[] | null {
  const from = Math.max(0, bytes.length - 22 - 65_535);
  for (let at = bytes.length - 22; at >= from; at--) {
    if (bytes.readUInt32LE(at) !== ZIP_END) continue;
    const count = bytes.readUInt16LE(at + 10);
    const size = bytes.readUInt32LE(at + 12);
    const offset = bytes.readUInt32LE(at + 16);
    if (offset + size > at) continue;
    const entries: ZipEntry[] = [];
    let p = offset;
    for (let i = 0; i < count; i++) {
      if (p + 46 > bytes.length || bytes.readUInt32LE(p) !== 0x02014b50) return null;
      const nameLength = bytes.readUInt16LE(p + 28);
      const extra = bytes.readUInt16LE(p + 30);
      const comment = bytes.readUInt16LE(p + 32);
      entries.push({
        name: bytes.toString('utf8', p + 46, p + 46 + nameLength),
        compressedSize: bytes.readUInt32LE(p + 20),
        uncompressedSize: bytes.readUInt32LE(p + 24),
        method: bytes.readUInt16LE(p + 10),
        localHeaderOffset: bytes.readUInt32LE(p + 42),
      });
      p += 46 + nameLength + extra + comment;
    }
    return entries;
  }
  return null;
}

/** One entry's bytes, inflated to at most `maxBytes` (past that, null: the caller refuses the file). */
export function readZipEntry(bytes: Buffer, entry: ZipEntry, maxBytes: number): Buffer | null {
  const at = entry.localHeaderOffset;
  if (at + 30 > bytes.length || bytes.readUInt32LE(at) !== ZIP_LOCAL) return null;
  const start = at + 30 + bytes.readUInt16LE(at + 26) + bytes.readUInt16LE(at + 28);
  const data = bytes.subarray(start, start + entry.compressedSize);
  try {
    if (entry.method === 0) return data.length <= maxBytes ? Buffer.from(data) : null;
    if (entry.method === 8) return inflateRawSync(data, { maxOutputLength: maxBytes });
  } catch {
    return null;
  }
  return null;
}

/** UTF-16 text without a byte-order mark: most odd bytes (LE) or even bytes (BE) of its first characters are 0. */
function looksLikeBareUtf16(bytes: Buffer): boolean {
  const pairs = Math.min(512, Math.floor(bytes.length / 2));
  let even = 0, odd = 0;
  for (let i = 0; i < pairs; i++) {
    if (bytes[2 * i] === 0) even++;
    if (bytes[2 * i + 1] === 0) odd++;
  }
  return pairs >= 8 && Math.max(even, odd) >= 0.6 * pairs && Math.min(even, odd) <= 0.05 * pairs;
}

/**
 * A plain-text file's text: UTF-8 (a byte-order mark dropped), or UTF-16 with its byte-order mark (what Windows
 * tools call "Unicode"); otherwise why not.
 */
export function decodeText(bytes: Buffer): { text: string } | { reason: string } {
  const encoding = bytes[0] === 0xff && bytes[1] === 0xfe ? 'utf-16le' : bytes[0] === 0xfe && bytes[1] === 0xff ? 'utf-16be' : 'utf-8';
  if (encoding === 'utf-8' && bytes.includes(0)) {
    return { reason: looksLikeBareUtf16(bytes) ? 'it looks like UTF-16 text without a byte-order mark; save it as UTF-8' : 'it contains binary data' };
  }
  try {
    // The decoder drops a byte-order mark itself.
    const text = new TextDecoder(encoding, { fatal: true }).decode(bytes);
    if (text.length === 0) return { reason: 'the file is empty' };
    // As a NUL byte is in UTF-8: U+0000 is in no text document.
    if (text.includes('\u0000')) return { reason: 'it contains binary data' };
    return { text };
  } catch {
    return { reason: encoding === 'utf-8' ? 'it is neither PDF, DOCX nor UTF-8 text' : `it is not valid ${encoding.toUpperCase()} text` };
  }
}

/** Why a plain-text file's text is no document we read (RTF, HTML, binary control characters); null when it is one. */
function notPlainText(text: string): string | null {
  const head = text.slice(0, 512).trimStart().toLowerCase();
  if (head.startsWith('{\\rtf')) return 'RTF is not supported; save it as PDF or DOCX';
  if (/^<(!doctype|html|\?xml|svg)/.test(head)) return 'HTML and XML are not supported; upload PDF, DOCX or plain text';
  // Control characters other than tab, newline, carriage return and form feed mark a binary file.
  const allowed = Math.floor(text.length / 100);
  let controls = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 32 && c !== 9 && c !== 10 && c !== 12 && c !== 13) || c === 127) {
      if (++controls > allowed) return 'it contains binary data';
    }
  }
  return null;
}

export function sniffDocument(bytes: Buffer): Sniffed {
  if (bytes.length === 0) return { type: null, reason: 'the file is empty' };
  const isPdf = looksLikePdf(bytes);
  const zip = zipEntries(bytes);
  if (isPdf && zip) return { type: null, reason: 'the file is both a PDF and a ZIP archive' };
  if (isPdf) return { type: 'pdf' };
  if (bytes.length >= 4 && bytes.readUInt32LE(0) === ZIP_LOCAL) {
    if (!zip) return { type: null, reason: 'the ZIP archive is damaged' };
    if (zip.some((e) => e.name === 'word/document.xml')) return { type: 'docx' };
    return { type: null, reason: 'the ZIP archive is not a Word document (DOCX)' };
  }
  if (bytes.subarray(0, 8).equals(OLE_MAGIC)) return { type: null, reason: 'Word 97–2003 (.doc) files are not supported; save it as DOCX or PDF' };
  const decoded = decodeText(bytes);
  if ('reason' in decoded) return { type: null, reason: decoded.reason };
  const notText = notPlainText(decoded.text);
  return notText ? { type: null, reason: notText } : { type: 'text', text: decoded.text };
}

export const DOCUMENT_CONTENT_TYPES = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  text: 'text/plain',
} as const satisfies Record<DocumentType, string>;

export type DocumentContentType = (typeof DOCUMENT_CONTENT_TYPES)[DocumentType];

/** The file name extension a download of each type gets. */
export const DOCUMENT_EXTENSIONS: Record<DocumentContentType, string> = {
  [DOCUMENT_CONTENT_TYPES.pdf]: 'pdf',
  [DOCUMENT_CONTENT_TYPES.docx]: 'docx',
  [DOCUMENT_CONTENT_TYPES.text]: 'txt',
};

/** The containers a browser's MediaRecorder writes, told by their first bytes: what a recording is stored and served as. */
export const RECORDING_FORMATS = [
  { extension: 'webm', contentType: 'audio/webm', starts: (b: Buffer) => b.length >= 4 && b.readUInt32BE(0) === 0x1a45dfa3 }, // EBML
  { extension: 'ogg', contentType: 'audio/ogg', starts: (b: Buffer) => b.subarray(0, 4).toString('latin1') === 'OggS' },
  { extension: 'm4a', contentType: 'audio/mp4', starts: (b: Buffer) => b.subarray(4, 8).toString('latin1') === 'ftyp' }, // Safari
] as const;
export type RecordingFormat = (typeof RECORDING_FORMATS)[number];

export const sniffRecording = (bytes: Buffer): RecordingFormat | null => RECORDING_FORMATS.find((f) => f.starts(bytes)) ?? null;

/** A stored recording's format, from the extension it was stored under. */
export const recordingFormatOfKey = (key: string): RecordingFormat =>
  RECORDING_FORMATS.find((f) => key.endsWith(`.${f.extension}`)) ?? RECORDING_FORMATS[0];

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A PNG: its signature, then an IHDR chunk of 13 bytes with a width and height of at least 1 (a header, not a decoder). */
export function isPng(bytes: Buffer): boolean {
  if (bytes.length < 33 || !bytes.subarray(0, 8).equals(PNG_MAGIC)) return false;
  if (bytes.readUInt32BE(8) !== 13 || bytes.toString('latin1', 12, 16) !== 'IHDR') return false;
  return bytes.readUInt32BE(16) > 0 && bytes.readUInt32BE(20) > 0;
}
