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
