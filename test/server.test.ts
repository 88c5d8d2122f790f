import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { throwawayDatabase } from './helpers/harness.js';
import { CLI, ROOT, startServe, type ServeProcess } from './helpers/processes.js';

let database: Awaited<ReturnType<typeof throwawayDatabase>>;
const running: ServeProcess[] = [];

beforeAll(async () => {
  database = await throwawayDatabase();
});
afterAll(async () => {
  await Promise.all(running.map((p) => p.stop()));
  await database.drop();
});

/** `prep serve` on the file's database; the first start migrates it and loads the catalogues (10 s on PostgreSQL here). */
async function serve(): Promise<ServeProcess> {
  const p = await startServe(database.env, [], 90_000);
  running.push(p);
  return p;
}

describe('prep serve', () => {
  let key = '';

  it('on an empty database creates a default organisation and prints its sandbox keys once', async () => {
    const first = await serve();
    const out = first.output();
    const secret = /sandbox secret key\s+(svc_sk_test_\S+)/.exec(out);
    const publishable = /sandbox publishable key\s+(svc_pk_test_\S+)/.exec(out);
    expect(secret, out).not.toBeNull();
    expect(publishable, out).not.toBeNull();
    key = secret![1];

    const usage = await fetch(`${first.url}/v1/usage`, { headers: { authorization: `Bearer ${key}` } });
    expect(usage.status).toBe(200);
    const body = (await usage.json()) as any;
    expect(body.livemode).toBe(false);
    expect(body.credits.coding).toBeGreaterThan(0);
    expect(usage.headers.get('request-id')).toMatch(/^req_/);
    await first.stop();
  }, 120_000);

  it('does not create another organisation or print keys on the next start', async () => {
    const again = await serve();
    expect(again.output()).not.toContain('svc_sk_test_');
    const usage = await fetch(`${again.url}/v1/usage`, { headers: { authorization: `Bearer ${key}` } });
    expect(usage.status).toBe(200);
    const health = await fetch(`${again.url}/v1/health`);
    expect(await health.json()).toEqual({ object: 'health', status: 'ok' });
    await again.stop();
  });

  // Was a bug: a server given another encryption key than its signing key was written with started, and then answered
  // every session-token request with a 500.
  it('refuses to start when the signing key cannot be decrypted with the encryption key it is given', async () => {
    const failed = await startServe({ ...database.env, PREP_ENCRYPTION_KEY: 'cd'.repeat(32) }).then((p) => { running.push(p); return ''; }, (e: Error) => e.message);
    expect(failed).toContain('exited early (code 1');
    expect(failed).toContain('prep: configuration error: the signing key in the database cannot be decrypted with this encryption key');
  });

  // Was a bug: the job worker started before listen; on a taken port the process stayed up, running jobs with no HTTP.
  it('on a port that is taken, fails with the reason and exits 1 instead of staying up as a worker', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
    const port = (blocker.address() as AddressInfo).port;
    const child = spawn(process.execPath, [CLI, 'serve', '--port', String(port)], {
      cwd: ROOT, env: { ...process.env, ...database.env, HOST: '127.0.0.1', PREP_LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    const code = await new Promise<number | string>((resolve) => {
      // About 2 s here; a process started on a loaded machine may take many times that.
      const timer = setTimeout(() => resolve('still running after 45 s'), 45_000);
      child.once('exit', (c) => { clearTimeout(timer); resolve(c ?? 'killed by a signal'); });
    });
    child.kill('SIGKILL');
    blocker.close();
    expect(err).toContain(`cannot listen on 127.0.0.1 port ${port} (HOST, PORT): listen EADDRINUSE`);
    expect(err).not.toMatch(/\n\s+at /); // a sentence, not the stack it was
    expect(code).toBe(1);
  }, 60_000);

  // Was a bug: the default organisation and its keys were made before listen; on a taken port the keys were printed
  // by a server that then failed, and no later start printed them again.
  it('on a taken port at the first start, makes no keys, and the next start that listens prints them', async () => {
    const fresh = await throwawayDatabase();
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const child = spawn(process.execPath, [CLI, 'serve', '--port', String(port)], {
        cwd: ROOT, env: { ...process.env, ...fresh.env, HOST: '127.0.0.1', PREP_LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout!.on('data', (d) => (out += d));
      const code = await new Promise<number | string>((resolve) => {
        const timer = setTimeout(() => resolve('still running after 90 s'), 90_000); // a fresh database: migrations and catalogues first
        child.once('exit', (c) => { clearTimeout(timer); resolve(c ?? 'killed by a signal'); });
      });
      child.kill('SIGKILL');
      expect(code).toBe(1);
      expect(out).not.toContain('svc_sk_test_');
      const next = await startServe(fresh.env, []);
      running.push(next);
      expect(next.output()).toMatch(/sandbox secret key\s+svc_sk_test_\S+/);
      await next.stop();
    } finally {
      blocker.close();
      await fresh.drop();
    }
  }, 180_000);

  /**
   * What the key has left of its rate limit: every request the server has taken in (its headers read) counts. A fresh
   * process each time: its counters start with the first request (a minute's window).
   */
  async function remaining(url: string): Promise<number> {
    const res = await fetch(`${url}/v1/candidates?limit=1`, { headers: { authorization: `Bearer ${key}` } });
    await res.arrayBuffer();
    return Number(res.headers.get('x-ratelimit-remaining'));
  }

  /** A request whose body never finishes arriving: the server holds it open (its handler is still to run). */
  async function hangingRequest(url: string): Promise<Socket> {
    const { hostname, port } = new URL(url);
    const before = await remaining(url);
    const socket = connect(Number(port), hostname === 'localhost' ? '127.0.0.1' : hostname);
    await new Promise<void>((resolve, reject) => socket.once('connect', () => resolve()).once('error', reject));
    socket.on('error', () => undefined);
    socket.write(`POST /v1/candidates HTTP/1.1\r\nhost: ${hostname}\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"name":`);
    // Held once the server has taken it in (it counts against the key's limit), not after a fixed wait: a server
    // that had not read it yet would stop with nothing in hand.
    for (let asked = 1; before - (await remaining(url)) <= asked; asked++) {
      if (asked > 100) throw new Error('the server never took the hanging request in');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return socket;
  }

  function exitOf(p: ServeProcess): Promise<{ code: number | null; ms: number }> {
    const started = Date.now();
    return new Promise((resolve) => p.child.once('exit', (code) => resolve({ code, ms: Date.now() - started })));
  }

  // Was a bug: a SIGTERM waited for the requests and jobs in hand with no bound (jobs may run an hour), so a request
  // that never finished kept the server from ever stopping. It now exits 1 once PREP_SHUTDOWN_GRACE_MS has passed.
  /** A server holding a request that never finishes, sent SIGTERM (and, with `again`, a second one 500 ms later). */
  async function stopMidRequest(env: Record<string, string>, again: boolean): Promise<{ code: number | null; ms: number; output: string }> {
    const p = await startServe(env);
    running.push(p);
    const socket = await hangingRequest(p.url);
    const exited = exitOf(p);
    p.child.kill('SIGTERM');
    if (again) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      p.child.kill('SIGTERM');
    }
    const timer = setTimeout(() => p.child.kill('SIGKILL'), 15_000);
    const { code, ms } = await exited;
    clearTimeout(timer);
    socket.destroy();
    return { code, ms, output: p.output() };
  }

  it('on SIGTERM exits once the shutdown grace has passed, though a request never finishes', async () => {
    const { code, ms, output } = await stopMidRequest({ ...database.env, PREP_SHUTDOWN_GRACE_MS: '500' }, false);
    expect(code, output).toBe(1);
    expect(ms).toBeLessThan(10_000);
    expect(output).toContain('still stopping after 500 ms (PREP_SHUTDOWN_GRACE_MS): exiting');
  }, 60_000);

  it('a second SIGTERM exits at once, inside the grace', async () => {
    const { code, ms, output } = await stopMidRequest(database.env, true); // the default grace, 30 s
    expect(code, output).toBe(1);
    expect(ms).toBeLessThan(10_000);
    expect(output).toContain('SIGTERM again: exiting now');
  }, 60_000);

  it('a SIGTERM with nothing in hand stops at once and exits 0', async () => {
    const p = await startServe(database.env);
    running.push(p);
    const exited = exitOf(p);
    p.child.kill('SIGTERM');
    const { code, ms } = await exited;
    expect(code, p.output()).toBe(0);
    expect(ms).toBeLessThan(10_000);
  }, 60_000);

  // Was a bug: the signal handlers were installed once start-up was over; a SIGTERM during the migrations and
  // catalogue loads killed the process the default way. It now lets the step under way finish, closes, and exits 0.
  it('a SIGTERM during start-up stops it cleanly: exit 0, not announced as ready, the database usable', async () => {
    for (const command of [['serve', '--port', '0', '--no-workers'], ['worker']]) {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'prep-startup-'));
      const env = { ...process.env, DATABASE_URL: '', PREP_DATA_DIR: dataDir, PREP_ENCRYPTION_KEY: 'ab'.repeat(32), HOST: '127.0.0.1', PREP_LOG_LEVEL: 'silent' };
      // Start-up waits at the lock start-ups take turns on (held here), so the signal surely comes in the middle of it.
      const lock = new SQLite(path.join(dataDir, 'prep.sqlite.prepare-lock'));
      lock.exec('begin exclusive');
      const child = spawn(process.execPath, [CLI, ...command], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout!.on('data', (d) => (out += d));
      child.stderr!.on('data', (d) => (out += d));
      const exited = new Promise<[number | null, string | null]>((resolve) => child.once('exit', (code, signal) => resolve([code, signal])));
      // The database file is made once the handlers are in place, just before start-up waits for the lock.
      for (let i = 0; i < 600 && !existsSync(path.join(dataDir, 'prep.sqlite')); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      await new Promise((resolve) => setTimeout(resolve, 200));
      child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 300));
      lock.close();
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      const [code, signal] = await exited;
      clearTimeout(timer);
      expect([code, signal], `${command[0]}: ${out}`).toEqual([0, null]);
      expect(out).not.toMatch(/is listening|is running/);
      expect(out).not.toContain('svc_sk_test_'); // serve stopped before listening: no first-start keys were made
      expect(execFileSync(process.execPath, [CLI, 'migrate'], { cwd: ROOT, env, encoding: 'utf8' })).toContain('Already up to date.');
    }
  }, 180_000);

  // Was a bug: `npm start` ran `sh -c "node … serve"`; SIGTERM to npm (docker stop, systemd) reached the shell, which
  // died and left the server running, orphaned, never shut down. The script execs node, which gets the signal.
  it('under `npm start`, a SIGTERM to npm shuts the server down', async () => {
    const child = spawn('npm', ['start', '--ignore-scripts', '--', '--port', '0', '--no-workers'], {
      cwd: ROOT, env: { ...process.env, ...database.env, HOST: '127.0.0.1', PREP_LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
    });
    try {
      let out = '';
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no URL printed: ${out}`)), 60_000);
        child.stdout!.on('data', (d) => {
          out += d;
          const m = /Prep is listening on (\S+)/.exec(out);
          if (m) { clearTimeout(timer); resolve(m[1]); }
        });
      });
      expect((await fetch(`${url}/v1/health`)).status).toBe(200);
      child.kill('SIGTERM');
      let serving = true;
      for (let i = 0; i < 40 && serving; i++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        serving = await fetch(`${url}/v1/health`).then(() => true, () => false);
      }
      expect(serving).toBe(false);
    } finally {
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* all gone */ }
    }
  }, 90_000);
});
