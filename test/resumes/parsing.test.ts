import { describe, expect, it } from 'vitest';
import { parseResume } from '../../src/modules/resumes/parse/index.js';
import { normaliseBrief, scoreResume } from '../../src/modules/resumes/scoring/index.js';
import { buildCorpus, buildFitPairs, f1, fieldScores } from '../helpers/resume-corpus.js';

const AS_OF = '2026-11';
type Counts = { tp: number; fp: number; fn: number };

describe('parsing the labelled set', () => {
  it('reads every field with F1 of at least 0.9, in every format (printed)', async () => {
    const corpus = await buildCorpus();
    expect(corpus.length).toBeGreaterThanOrEqual(30);
    const totals: Record<string, Counts> = {};
    const byFormat: Record<string, Record<string, Counts>> = {};
    for (const file of corpus) {
      const { parsed } = await parseResume(file.bytes, { asOf: AS_OF });
      for (const [field, c] of Object.entries(fieldScores(file.truth, parsed) as Record<string, Counts>)) {
        for (const bucket of [(totals[field] ??= { tp: 0, fp: 0, fn: 0 }), ((byFormat[file.format] ??= {})[field] ??= { tp: 0, fp: 0, fn: 0 })]) {
          bucket.tp += c.tp;
          bucket.fp += c.fp;
          bucket.fn += c.fn;
        }
      }
    }
    const table = Object.entries(totals).map(([field, c]) => ({
      field, f1: Number(f1(c).toFixed(3)), ...Object.fromEntries(Object.entries(byFormat).map(([format, fields]) => [format, Number(f1(fields[field]).toFixed(2))])),
    }));
    console.log(`Field-level F1 over ${corpus.length} generated resumes (${Object.keys(byFormat).join(', ')}):`);
    console.table(table);
    for (const row of table) expect(row.f1, row.field).toBeGreaterThanOrEqual(0.9);
    for (const [format, fields] of Object.entries(byFormat)) {
      for (const [field, c] of Object.entries(fields)) expect(f1(c), `${format} ${field}`).toBeGreaterThanOrEqual(0.85);
    }
  }, 120_000);

  it('reads two-column PDFs column by column and says so', async () => {
    const corpus = (await buildCorpus()).filter((f) => f.format === 'pdf-2col');
    for (const file of corpus) {
      const { parsed } = await parseResume(file.bytes, { asOf: AS_OF });
      expect(parsed.warnings.map((w) => w.code), file.id).toContain('two_column_layout');
    }
    const single = (await buildCorpus()).filter((f) => f.format === 'pdf-1col');
    for (const file of single) {
      const { parsed } = await parseResume(file.bytes, { asOf: AS_OF });
      expect(parsed.warnings.map((w) => w.code), file.id).not.toContain('two_column_layout');
    }
  }, 120_000);
});

describe('scoring strong and weak fits to one brief', () => {
  it('scores the strong resume higher in at least 90% of pairs (printed)', async () => {
    const pairs = await buildFitPairs();
    expect(pairs.length).toBeGreaterThanOrEqual(20);
    let wins = 0;
    const rows = [];
    for (const pair of pairs) {
      const brief = normaliseBrief(pair.brief);
      const strong = scoreResume(await parseResume(pair.strong.bytes, { asOf: AS_OF }), brief, { asOf: AS_OF });
      const weak = scoreResume(await parseResume(pair.weak.bytes, { asOf: AS_OF }), brief, { asOf: AS_OF });
      if (strong.overall > weak.overall) wins++;
      rows.push({ role: pair.brief.role, strong: strong.overall, weak: weak.overall, weak_flags: weak.flags.join(' ') });
    }
    console.log(`Strong beats weak in ${wins} of ${pairs.length} pairs:`);
    console.table(rows);
    expect(wins / pairs.length).toBeGreaterThanOrEqual(0.9);
  }, 120_000);
});

describe('plain-text encodings', () => {
  /** The text as UTF-16 with its byte-order mark (what Windows Notepad saves as "Unicode"), little- or big-endian. */
  const utf16 = (text: string, order: 'le' | 'be', bom = true) => {
    const le = Buffer.from((bom ? '\uFEFF' : '') + text, 'utf16le');
    return order === 'le' ? le : Buffer.from(le).swap16();
  };

  it('reads UTF-16 text with a byte-order mark as it reads the same text in UTF-8; refuses UTF-16 without one, saying so', async () => {
    const texts = (await buildCorpus()).filter((f) => f.format === 'txt').slice(0, 4);
    expect(texts.length).toBe(4);
    for (const file of texts) {
      const text = file.bytes.toString('utf8').replace(/^\uFEFF/, '');
      const expected = (await parseResume(Buffer.from(text, 'utf8'), { asOf: AS_OF })).parsed;
      for (const order of ['le', 'be'] as const) {
        const { parsed, contentType } = await parseResume(utf16(text, order), { asOf: AS_OF });
        expect(parsed, `${file.id} utf-16${order}`).toEqual(expected);
        expect(contentType).toBe('text/plain');
      }
      await expect(parseResume(utf16(text, 'le', false), { asOf: AS_OF })).rejects.toThrow(/UTF-16 text without a byte-order mark; save it as UTF-8/);
    }
    // A byte-order mark followed by what is not UTF-16 (an unpaired surrogate) is refused, not read as noise.
    await expect(parseResume(Buffer.from([0xff, 0xfe, 0x00, 0xd8, 0x41, 0x00]), { asOf: AS_OF })).rejects.toThrow(/not valid UTF-16LE text/);
  });
});
