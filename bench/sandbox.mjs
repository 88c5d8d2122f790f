// Code execution: the cost of the sandbox against the physical floor, and judging throughput.
//
// 1. Latency of one run of a hello world, sandboxed (launcher + bubblewrap + rlimits + per-slot uid, in the
//    slot's ready sandbox, as the service runs it) against spawning the same interpreter or binary directly,
//    alternating the two so a slow spell of the machine hits both alike. Targets: Python at most 1.4x bare,
//    C at most 8x bare. Also the cost of a sandbox made on the spot (no ready one), for reference.
// 2. Judging throughput: submissions of a 10-case Python problem judged through the sandbox's slots, in
//    hidden cases per second. Target: at least 20 on this 2-core machine.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../dist/config.js';
import { launcherBinary } from '../dist/sandbox/launcher.js';
import { detectLanguages } from '../dist/sandbox/languages.js';
import { runIn, warmSandbox } from '../dist/sandbox/runner.js';
import { createSandbox, slotIdentities } from '../dist/sandbox/sandbox.js';

const options = parseArgs({ strict: false, options: { runs: { type: 'string', default: '200' }, submissions: { type: 'string', default: '40' } } }).values;
const RUNS = Number(options.runs);
const dir = mkdtempSync(path.join(os.tmpdir(), 'prep-bench-sandbox-'));
const config = loadConfig({ PREP_SANDBOX_DIR: path.join(dir, 'launcher') }).sandbox;
const launcher = await launcherBinary(config.dir);
const [slot] = slotIdentities(config);
const languages = await detectLanguages();
const python = languages.find((l) => l.id === 'python');
const c = languages.find((l) => l.id === 'c');

const limits = { cpuMs: 2000, wallMs: 10_000, addressSpaceMb: 320, processes: 64, fileSizeMb: 16, openFiles: 128, stdoutBytes: 1 << 20, stderrBytes: 1 << 20 };

function bare(file, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin' } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 && out === 'hello\n' ? resolve() : reject(new Error(`bare run failed: ${code} ${out}`))));
    child.stdin.end();
  });
}

// As in the service: each slot keeps its next sandbox made and waiting, so a candidate's run (seconds apart
// from the previous one) starts in a ready sandbox. The pause between rounds lets the next one get ready.
let ready = warmSandbox(launcher, slot);
async function sandboxed(argv, files) {
  const sandbox = ready;
  const r = await runIn(sandbox, { argv, files, limits });
  ready = warmSandbox(launcher, slot);
  if (r.exitCode !== 0 || r.stdout.toString() !== 'hello\n') throw new Error(`sandboxed run failed: ${r.exitCode} ${r.stderr}`);
}

async function timeOne(fn) {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const pause = () => new Promise((r) => setTimeout(r, 25));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;

async function compare(name, bareRun, sandboxRun, target) {
  for (let i = 0; i < 10; i++) { await bareRun(); await sandboxRun(); } // warm caches
  const b = [];
  const s = [];
  for (let i = 0; i < RUNS; i++) {
    await pause();
    b.push(await timeOne(bareRun));
    await pause();
    s.push(await timeOne(sandboxRun));
  }
  const ratio = median(s) / median(b);
  console.log(`${name}: bare median ${median(b).toFixed(2)} ms (mean ${mean(b).toFixed(2)}), sandboxed median ${median(s).toFixed(2)} ms (mean ${mean(s).toFixed(2)}), ratio ${ratio.toFixed(2)}x (target <= ${target}x) ${ratio <= target ? 'MET' : 'MISSED'}`);
}

const helloPy = 'print("hello")\n';
writeFileSync(path.join(dir, 'hello.py'), helloPy);
await compare('python hello', () => bare(python.run(256)[0], [path.join(dir, 'hello.py')]),
  () => sandboxed(python.run(256), [{ name: 'main.py', content: helloPy }]), 1.4);

writeFileSync(path.join(dir, 'hello.c'), '#include <stdio.h>\nint main(void){ puts("hello"); return 0; }\n');
execFileSync('gcc', ['-O2', '-o', path.join(dir, 'hello'), path.join(dir, 'hello.c')]);
const binary = readFileSync(path.join(dir, 'hello'));
await compare('c hello', () => bare(path.join(dir, 'hello'), []),
  () => sandboxed(c.run(256), [{ name: 'main', content: binary, executable: true }]), 8);

// For reference: a sandbox made on the spot for each run (what a burst of back-to-back runs on one slot pays).
{
  const cold = [];
  for (let i = 0; i < 50; i++) cold.push(await timeOne(() => runIn(warmSandbox(launcher, slot), { argv: python.run(256), files: [{ name: 'main.py', content: helloPy }], limits })));
  console.log(`python hello, sandbox made on the spot: median ${median(cold).toFixed(2)} ms`);
}

// Judging throughput: a 10-case problem (sum of a list), every submission judged on all ten cases.
const sandbox = createSandbox({ ...config, uidBase: config.uidBase + 4_194_304 });
const cases = Array.from({ length: 10 }, (_, i) => {
  const nums = Array.from({ length: 1000 * (i + 1) }, (_, j) => (j * 7919 + i) % 1000);
  return { name: `case-${i + 1}`, input: `${nums.length}\n${nums.join(' ')}\n`, expected: `${nums.reduce((s, x) => s + x, 0)}\n` };
});
const solution = 'import sys\ndata = sys.stdin.buffer.read().split()\nprint(sum(map(int, data[1:])))\n';
const judge = () => sandbox.execute({ language: 'python', source: solution, comparator: 'exact', priority: 'batch', limits: { timeLimitMs: 2000, memoryLimitMb: 256 }, cases });
await judge();
const submissions = Number(options.submissions);
const start = process.hrtime.bigint();
const results = await Promise.all(Array.from({ length: submissions }, judge));
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
const accepted = results.flatMap((r) => r.cases).filter((x) => x.verdict === 'ACCEPTED').length;
if (accepted !== submissions * cases.length) throw new Error(`only ${accepted} cases accepted`);
const perSecond = accepted / seconds;
console.log(`judging: ${submissions} submissions x ${cases.length} cases on ${config.slots} slots in ${seconds.toFixed(2)} s: ${(submissions / seconds).toFixed(1)} submissions/s, ${perSecond.toFixed(1)} hidden cases/s (target >= 20) ${perSecond >= 20 ? 'MET' : 'MISSED'}`);
rmSync(dir, { recursive: true, force: true });
ready.child.kill('SIGKILL');
