import { existsSync, mkdirSync, statSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { roomAssetsDir } from '../../src/modules/room/assets.js';
import type { Harness } from './harness.js';
import { testWorker } from './settle.js';

/** Debian's Chromium (installed by .ci/run); playwright-core drives it, it never downloads a browser. */
export const CHROMIUM = process.env.PREP_CHROMIUM ?? '/usr/bin/chromium';
export const browserAvailable = existsSync(CHROMIUM);
if (!browserAvailable && process.env.PREP_TEST_REQUIRE_BROWSER === '1') {
  throw new Error(`Chromium is required (PREP_TEST_REQUIRE_BROWSER=1) but ${CHROMIUM} is missing: apt-get install chromium`);
}

/** The flags this machine needs: no sandbox as root, and no background connections to the (closed) network. */
export const launchBrowser = (extraArgs: string[] = []): Promise<Browser> => chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage', ...extraArgs],
});

/** A fake microphone (a beeping tone) granted without asking: Chromium's own flags for media tests. */
export const FAKE_MEDIA = ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream', '--autoplay-policy=no-user-gesture-required'];

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Where screenshots go: PREP_SCREENSHOT_DIR, or a fresh folder under the temp dir. Printed, never committed. */
export function screenshotDir(): string {
  const dir = process.env.PREP_SCREENSHOT_DIR ?? path.join(tmpdir(), `prep-room-screenshots-${Date.now().toString(36)}`);
  mkdirSync(dir, { recursive: true });
  console.log(`room screenshots: ${dir}`);
  return dir;
}

const PUMPED = ['coding.judge', 'coding.complete', 'webhook.deliver'];

/**
 * Background work for a harness that a browser is driving: runs due jobs continuously and, when judging or a
 * delivery waits on a retry, moves the harness's manual clock to it (never to a session's timeout).
 */
export function startPump(h: Harness): { stop(): Promise<void> } {
  const worker = testWorker(h);
  let running = true;
  const loop = (async () => {
    while (running) {
      const ran = await worker.runOnce();
      if (ran > 0) continue;
      const next = await h.db.kysely.selectFrom('background_jobs').select('run_at').where('status', '=', 'queued')
        .where('kind', 'in', PUMPED).orderBy('run_at').executeTakeFirst();
      if (next && next.run_at > h.clock.now() && next.run_at - h.clock.now() <= 120_000) h.clock.set(next.run_at);
      else await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
    },
  };
}

/** The room's scripts this page has loaded (file names under /room/) and their size on disk, uncompressed. */
export async function roomScripts(page: Page): Promise<{ files: string[]; bytes: number }> {
  const urls = await page.evaluate(`performance.getEntriesByType('resource').map((e) => e.name)`) as string[];
  const files = urls.map((u) => new URL(u).pathname).filter((p) => p.startsWith('/room/') && p.endsWith('.js')).map((p) => p.slice('/room/'.length));
  const dir = roomAssetsDir()!;
  return { files, bytes: files.reduce((sum, f) => sum + statSync(path.join(dir, f)).size, 0) };
}
