import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
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

async function serve(): Promise<ServeProcess> {
  const p = await startServe(database.env, []);
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
  });

  it('does not create another organisation or print keys on the next start', async () => {
    const again = await serve();
    expect(again.output()).not.toContain('svc_sk_test_');
    const usage = await fetch(`${again.url}/v1/usage`, { headers: { authorization: `Bearer ${key}` } });
    expect(usage.status).toBe(200);
    const health = await fetch(`${again.url}/v1/health`);
    expect(await health.json()).toEqual({ object: 'health', status: 'ok' });
    await again.stop();
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
      const timer = setTimeout(() => resolve('still running after 15 s'), 15_000);
      child.once('exit', (c) => { clearTimeout(timer); resolve(c ?? 'killed by a signal'); });
    });
    child.kill('SIGKILL');
    blocker.close();
    expect(err).toContain('EADDRINUSE');
    expect(code).toBe(1);
  }, 30_000);
});
