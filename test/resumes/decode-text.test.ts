import { describe, expect, it } from 'vitest';
import { sniffDocument } from '../../src/storage/file-type.js';

describe('plain text: UTF-16 edges (a review)', () => {
  // UTF-8 refuses any NUL byte as binary; UTF-16 lets U+0000 (and other controls) through up to 1% of the text.
  it('refuses UTF-16 text carrying NUL characters, as it refuses a NUL byte in UTF-8', () => {
    const text = 'Maya Patel\nSoftware Engineer at Acme Logistics\n'.repeat(5) + '\u0000';
    expect(sniffDocument(Buffer.from('\uFEFF' + text, 'utf16le')).type).toBeNull();
  });
  it('a byte-order mark alone is an empty file, not a text document', () => {
    expect(sniffDocument(Buffer.from([0xff, 0xfe])).type).toBeNull();
  });
});

describe('a PDF header', () => {
  // Was a bug: any `%PDF-` in the first KiB made the file a PDF, so a plain-text resume listing "%PDF-1.7" among its
  // skills near the top was refused as a broken PDF.
  it('mentioned near the top of a text resume leaves it text', () => {
    const text = 'Maya Patel\nDocument engineer: PDF internals (%PDF-1.7, PDF/A), OCR, typesetting\n\nExperience\n';
    expect(sniffDocument(Buffer.from(text))).toMatchObject({ type: 'text' });
  });
  it('at the start, or after junk in a file that ends with the trailer, is a PDF', () => {
    expect(sniffDocument(Buffer.from('%PDF-1.4\n1 0 obj\n')).type).toBe('pdf');
    expect(sniffDocument(Buffer.from('\r\n\r\n%PDF-1.4\n1 0 obj\n%%EOF\n')).type).toBe('pdf');
  });
});
