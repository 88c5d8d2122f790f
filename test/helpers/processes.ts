import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root (where package.json and dist/ live). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = path.join(ROOT, 'dist/cli/main.js');

/** dist/ is built once per test run by the global setup (test/helpers/build.ts); `npm run build` otherwise. */
function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first.`);
}

export interface ServeProcess {
  /** Base URL printed by `serve`, e.g. http://localhost:41234 (no trailing slash). */
  url: string;
  child: ChildProcess;
  /** Everything the process wrote so far (stdout and stderr), for failure messages. */
  output(): string;
  /** SIGTERM, then SIGKILL if it has not exited within the timeout. Safe to call twice. */
  stop(timeoutMs?: number): Promise<void>;
}

/**
 * Starts `prep serve --port 0 [extra args]` as a real process with `env` added to this process's
 * environment, and resolves once it prints `Prep is listening on <url>`.
 */
export async function startServe(env: Record<string, string>, extraArgs: string[] = ['--no-workers'], timeoutMs = 30_000): Promise<ServeProcess> {
  assertBuilt();
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', ...extraArgs], {
    cwd: ROOT,
    env: { ...process.env, PREP_LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => (out += chunk));

  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

  const stop = async (stopTimeoutMs = 10_000) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), stopTimeoutMs);
    await exited;
    clearTimeout(timer);
  };

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => fail(`did not print its URL within ${timeoutMs} ms`), timeoutMs);
    function fail(why: string) {
      clearTimeout(timer);
      reject(new Error(`prep serve ${why}. Output:\n${out}`));
    }
    child.stdout!.on('data', (chunk: string) => {
      out += chunk;
      const m = /Prep is listening on (https?:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1].replace(/\/$/, ''));
      }
    });
    child.once('error', (err) => fail(`could not start (${err.message})`));
    child.once('exit', (code, signal) => fail(`exited early (code ${code}, signal ${signal})`));
  }).catch(async (err) => {
    await stop(2_000);
    throw err;
  });

  return { url, child, output: () => out, stop };
}

/** Starts `prep worker` with `env`, resolving once it says it is running. Kill it with `child.kill()`. */
export function startWorkerProcess(env: Record<string, string>): Promise<ChildProcess> {
  assertBuilt();
  const child = spawn(process.execPath, [CLI, 'worker'], { cwd: ROOT, env: { ...process.env, PREP_LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('is running')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`prep worker exited ${code}: ${out}`)));
  });
}

/** Polls `check` every 100 ms until it holds; throws after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}
