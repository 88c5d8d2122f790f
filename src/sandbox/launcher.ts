import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, readFile, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import { makeDirectoryAsync } from '../platform/directories.js';
import type { Launcher } from './runner.js';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** launcher.c sits beside this module in src/, and two levels up from dist/sandbox/. */
function sourcePath(): string {
  for (const candidate of ['./launcher.c', '../../src/sandbox/launcher.c']) {
    const file = new URL(candidate, import.meta.url);
    if (existsSync(file)) return file.pathname;
  }
  throw new Error('src/sandbox/launcher.c is missing');
}

const builds = new Map<string, Promise<Launcher>>();

/**
 * The launcher binary, compiled once per source version into `dir` (named by the source's hash, so a
 * changed launcher is rebuilt and concurrent builders never see a half-written file).
 */
export function launcherBinary(dir: string): Promise<Launcher> {
  let build = builds.get(dir);
  if (!build) {
    build = buildLauncher(dir);
    builds.set(dir, build);
    build.catch(() => builds.delete(dir));
  }
  return build;
}

async function buildLauncher(dir: string): Promise<Launcher> {
  const source = sourcePath();
  const hash = createHash('sha256').update(readFileSync(source)).digest('hex').slice(0, 12);
  const binary = path.join(dir, `prep-launch-${hash}`);
  if (!(await isExecutable(binary))) await compile(source, dir, binary);
  return { path: binary, image: await readFile(binary) };
}

async function compile(source: string, dir: string, binary: string): Promise<void> {
  await makeDirectoryAsync(dir, 'PREP_SANDBOX_DIR'); // not Node's recursive mkdir, which spins for ever under /proc
  const partial = `${binary}.${process.pid}.tmp`;
  await run('cc', ['-O2', '-Wall', '-o', partial, source], { timeout: 60_000 });
  await chmod(partial, 0o700);
  await rename(partial, binary);
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    return ((await stat(file)).mode & 0o100) !== 0;
  } catch {
    return false;
  }
}
