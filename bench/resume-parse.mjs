// Resume parsing and scoring. Parse time per page of the labelled corpus's PDFs (one- and two-column), against
// `pdftotext -layout` (Debian's poppler-utils, a process per file as it is used) on the same files in the same run.
// Target: at most 4× pdftotext's time per page. Also the built-in scorer's throughput, in resumes per second.
// Usage: npm run bench:resumes [-- --rounds 5]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseResume } from '../dist/modules/resumes/parse/index.js';
import { createParsePool } from '../dist/modules/resumes/parse/pool.js';
import { normaliseBrief, scoreResume } from '../dist/modules/resumes/scoring/index.js';
import { buildFitPairs, writeCorpus } from '../test/helpers/resume-corpus.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' } } });
const rounds = Number(values.rounds);
try {
  execFileSync('pdftotext', ['-v'], { stdio: 'ignore' });
} catch {
  console.error('pdftotext is missing: apt-get install poppler-utils');
  process.exit(1);
}

const dir = mkdtempSync(path.join(tmpdir(), 'prep-resume-bench-'));
await writeCorpus(dir);
const files = readdirSync(dir).filter((f) => f.endsWith('.pdf')).map((f) => ({ name: f, path: path.join(dir, f), bytes: readFileSync(path.join(dir, f)) }));
const asOf = '2026-11';

// Page counts as pdf.js reads them; one warm-up parse of each file (module load, font tables) is not timed.
let pages = 0;
for (const f of files) pages += (await parseResume(f.bytes, { asOf })).pages;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// As the service runs it: one warm worker of the pool, the file transferred to it and the fields back.
const pool = createParsePool({ workers: 1, timeoutMs: 60_000, memoryMb: 512, maxQueued: 64 });
for (const f of files) await pool.parse(f.bytes, asOf);
const ours = [];
const pooled = [];
const theirs = [];
for (let r = 0; r < rounds; r++) {
  let t = performance.now();
  for (const f of files) await parseResume(f.bytes, { asOf });
  ours.push((performance.now() - t) / pages);
  t = performance.now();
  for (const f of files) await pool.parse(f.bytes, asOf);
  pooled.push((performance.now() - t) / pages);
  t = performance.now();
  for (const f of files) execFileSync('pdftotext', ['-layout', f.path, '-'], { stdio: ['ignore', 'ignore', 'ignore'] });
  theirs.push((performance.now() - t) / pages);
}
await pool.close();
const oursMs = median(ours);
const pooledMs = median(pooled);
const theirsMs = median(theirs);
console.log(`parse: ${files.length} PDFs, ${pages} pages, ${rounds} rounds (medians)`);
console.log(`  Prep in process (pdf.js + layout + fields): ${oursMs.toFixed(2)} ms/page`);
console.log(`  Prep through the worker pool:               ${pooledMs.toFixed(2)} ms/page`);
console.log(`  pdftotext -layout (a process per file):     ${theirsMs.toFixed(2)} ms/page`);
const ratio = pooledMs / theirsMs;
console.log(`  ratio (pool / pdftotext) ${ratio.toFixed(2)}× (target ≤ 4×) ${ratio <= 4 ? 'met' : 'NOT met'}; in process ${(oursMs / theirsMs).toFixed(2)}×`);

// Scoring: every pair's strong and weak resume against its brief, and standalone.
const pairs = await buildFitPairs();
const parsed = [];
for (const p of pairs) {
  for (const file of [p.strong, p.weak]) parsed.push({ result: await parseResume(file.bytes, { asOf }), brief: normaliseBrief(p.brief) });
}
let scored = 0;
const start = performance.now();
while (performance.now() - start < 3000) {
  for (const { result, brief } of parsed) {
    scoreResume(result, brief, { asOf });
    scoreResume(result, null, { asOf });
    scored += 2;
  }
}
console.log(`scoring: ${Math.round(scored / ((performance.now() - start) / 1000))} resumes/s (built-in scorer, one core, brief and standalone alternating)`);
rmSync(dir, { recursive: true, force: true });
