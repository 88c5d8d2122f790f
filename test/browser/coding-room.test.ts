import { createServer, type Server } from 'node:http';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: the example is plain JavaScript, shipped for customers to copy
import { startExampleHost } from '../../examples/embed/server.mjs';
import { browserAvailable, freePort, launchBrowser, roomScripts, screenshotDir, startPump } from '../helpers/browser.js';
import { bearer, startHarness, type Harness } from '../helpers/harness.js';
import { startWebhookReceiver } from '../helpers/tls.js';
import { hmac, parseSignature } from '../helpers/webhooks.js';

const TEST_SLUG = 'core-data-structures-screen';
const canJudge = process.getuid?.() === 0; // the sandbox drops each run to its own uid

let h: Harness;
let base: string;
let browser: Browser;
let pump: { stop(): Promise<void> };
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let thanks: { server: Server; url: string };
let shots: string;
let endpointSecret: string;

async function call(method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) {
  const res = await h.app.inject({ method, url, headers: bearer(h.org.keys.secret_test), ...(body === undefined ? {} : { payload: body as object }) });
  return { status: res.statusCode, body: res.json() as any };
}

/** A coding session of the shared screen, assigned to a new candidate; its first problem and a correct Python solution. */
async function assignSession(name: string) {
  const test = await h.db.kysely.selectFrom('coding_tests').select('id').where('slug', '=', TEST_SLUG).executeTakeFirstOrThrow();
  const candidate = await call('POST', '/v1/candidates', { email: `${name.toLowerCase().replace(/\W/g, '.')}.${Date.now()}@example.com`, name });
  const assigned = await call('POST', '/v1/coding-sessions', { candidate_id: candidate.body.id, coding_test_id: test.id });
  expect(assigned.status).toBe(201);
  const first = assigned.body.problems[0].problem as { id: string; title: string };
  const row = await h.db.kysely.selectFrom('coding_problems').select('reference_solutions').where('id', '=', first.id).executeTakeFirstOrThrow();
  const solution = (JSON.parse(row.reference_solutions!) as Record<string, string>).python!;
  return { id: assigned.body.id as string, problem: first, solution };
}

/** Replaces the editor's text the way a paste does (CodeMirror takes it as one input, no auto-indent). */
async function typeSolution(page: Page, source: string) {
  const editor = page.locator('.cm-content');
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(source);
}

async function completedEventFor(sessionId: string) {
  await expect.poll(() => receiver.received.some((r) => JSON.parse(r.body).data?.object?.id === sessionId), { timeout: 60_000, interval: 250 }).toBe(true);
  const delivery = receiver.received.find((r) => JSON.parse(r.body).data?.object?.id === sessionId)!;
  const event = JSON.parse(delivery.body);
  const signature = parseSignature(delivery.headers['svc-signature']);
  expect(signature.v1).toContain(hmac(endpointSecret, event.id, signature.t, delivery.body));
  return event;
}

describe.skipIf(!browserAvailable || !canJudge)('the candidate room in Chromium', () => {
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    const port = await freePort();
    h = await startHarness({
      env: {
        PREP_PUBLIC_URL: `http://127.0.0.1:${port}`, PREP_SANDBOX_UID_BASE: '600000', PREP_SANDBOX_SLOTS: '2',
        PREP_WEBHOOK_ALLOW_LOOPBACK_HOSTS: 'localhost', PREP_WEBHOOK_CA_FILE: receiver.caFile,
      },
    });
    base = await h.app.listen({ port, host: '127.0.0.1' });
    await h.services.signingKeys.ensureKey();
    await call('PATCH', '/v1/branding', { company_name: 'Acme Robotics', primary_color: '#0f766e', accent_color: '#f59e0b' });
    const endpoint = await call('POST', '/v1/webhook-endpoints', { url: receiver.url, enabled_events: ['coding.completed'] });
    expect(endpoint.status).toBe(201);
    endpointSecret = endpoint.body.secret;
    pump = startPump(h);
    browser = await launchBrowser();
    shots = screenshotDir();
    const thanksPort = await freePort();
    thanks = {
      server: createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Thanks from Acme</h1>')).listen(thanksPort, '127.0.0.1'),
      url: `http://localhost:${thanksPort}/thanks`,
    };
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await pump?.stop();
    thanks?.server.close();
    await h?.close();
    await receiver?.close();
  });

  it('a launch link: the page does not use the token, Start does; solve, run, submit, finish, redirect, webhook', async () => {
    const session = await assignSession('Grace Hopper');
    const link = await call('POST', `/v1/coding-sessions/${session.id}/launch-link`, { redirect_url: thanks.url });
    expect(link.status).toBe(201);
    const page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));

    await page.goto(link.body.url);
    await expect.poll(() => page.getByText('Acme Robotics').first().isVisible()).toBe(true);
    await expect.poll(() => page.getByText('Hello Grace Hopper').isVisible()).toBe(true);
    const start = page.getByRole('button', { name: 'Start' });
    await start.waitFor();
    // Loading (and previewing) the page used nothing: the link is unused and the session not started.
    const linkRow = await h.db.kysely.selectFrom('launch_links').select('used_at').where('subject_id', '=', session.id).executeTakeFirstOrThrow();
    expect(linkRow.used_at).toBeNull();
    expect((await call('GET', `/v1/coding-sessions/${session.id}`)).body.status).toBe('assigned');
    expect(await page.evaluate(`getComputedStyle(document.querySelector('.prep-start')).backgroundColor`)).toBe('rgb(15, 118, 110)'); // the organisation's primary colour
    await page.screenshot({ path: path.join(shots, '1-launch.png') });

    await start.click();
    await page.getByRole('heading', { name: session.problem.title }).waitFor();
    expect(new URL(page.url()).hash).toBe(''); // the used token left the address bar
    expect((await call('GET', `/v1/coding-sessions/${session.id}`)).body.status).toBe('started');
    await expect.poll(() => page.getByRole('timer').textContent()).toMatch(/^(1:00:00|59:\d\d)$/);
    // The editor opened on the starter template of the default language, highlighted.
    await expect.poll(() => page.locator('.cm-content').textContent()).toContain('sys.stdin');
    await expect.poll(() => page.locator('.cm-content span[class]').count()).toBeGreaterThan(0);
    // The grammar of the language shown was fetched, and no other (each is its own chunk).
    const grammars = (await roomScripts(page)).files.filter((f) => f.startsWith('codemirror-lang-'));
    expect(grammars.map((f) => f.replace(/-[\w-]{8}\.js$/, ''))).toEqual(['codemirror-lang-python']);

    await typeSolution(page, session.solution);
    await page.keyboard.press('Control+Enter'); // Run, from the keyboard, in the editor
    await page.locator('.prep-run .prep-verdict', { hasText: 'Accepted' }).first().waitFor({ timeout: 30_000 });
    expect(await page.locator('.prep-case').count()).toBeGreaterThan(0);
    // The editor does not trap the keyboard: Tab indents, Escape then Tab moves on.
    await page.locator('.cm-content').focus();
    await page.keyboard.press('Escape');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.classList.contains("cm-content")')).toBe(false);

    // Custom stdin: the program's own output is shown.
    await page.getByRole('tab', { name: 'Custom input' }).click();
    await page.getByRole('checkbox').check();
    await page.getByLabel('Custom input').fill(await firstExampleInput(session.id));
    await page.getByRole('button', { name: 'Run' }).click();
    await page.locator('.prep-case summary', { hasText: 'stdin' }).waitFor({ timeout: 30_000 });
    await page.screenshot({ path: path.join(shots, '2-room-mid-test.png') });

    await page.getByRole('button', { name: 'Submit' }).click();
    await page.locator('.prep-submission .prep-verdict', { hasText: 'Accepted' }).waitFor({ timeout: 60_000 });
    await expect.poll(() => page.locator('.prep-attempts').textContent()).toMatch(/^9 attempts left$/);
    expect(await page.locator('.prep-submission').textContent()).toMatch(/(\d+) of \1 test cases passed/);

    // Proctoring: leaving the window, hiding the tab, pasting and copying are recorded as signals.
    await page.evaluate(`(() => {
      window.dispatchEvent(new Event('blur'));
      const data = new DataTransfer();
      data.setData('text/plain', 'pasted text');
      document.querySelector('.cm-content').dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
      document.querySelector('.prep-statement').dispatchEvent(new ClipboardEvent('copy', { bubbles: true }));
      Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
      Object.defineProperty(document, 'visibilityState', { value: 'visible', configurable: true });
    })()`);
    const signals = async () => (await h.db.kysely.selectFrom('proctoring_events').select(['type', 'meta']).where('subject_id', '=', session.id).execute());
    await expect.poll(async () => (await signals()).map((e) => e.type).sort(), { timeout: 15_000 }).toEqual(['copy', 'paste', 'tab_hidden', 'window_blur']);
    expect(JSON.parse((await signals()).find((e) => e.type === 'paste')!.meta!)).toEqual({ chars: 11 });

    // A reload keeps everything: the room reopens (no Start), the code from the draft, the verdict from the service.
    await page.reload();
    await page.locator('.prep-submission .prep-verdict', { hasText: 'Accepted' }).waitFor({ timeout: 15_000 });
    expect(await page.locator('.cm-content').textContent()).toContain(session.solution.split('\n').find((l) => l.trim().length > 12)!.trim());

    await page.getByRole('button', { name: 'Finish' }).click();
    await page.getByRole('dialog').getByText('You have solved 1 of 2 problems').waitFor();
    await page.getByRole('button', { name: 'Finish now' }).click();
    await page.getByRole('heading', { name: 'Thank you — you are done' }).waitFor();
    await page.screenshot({ path: path.join(shots, '3-finished.png') });
    await page.waitForURL(thanks.url, { timeout: 15_000 });

    const event = await completedEventFor(session.id);
    expect(event.type).toBe('coding.completed');
    expect(event.data.object).toMatchObject({ id: session.id, problems_solved: 1 });
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);

  it('a used, cancelled or unknown link shows a message, not a stack trace', async () => {
    const page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
    const cancelled = await assignSession('Ada Lovelace');
    const link = await call('POST', `/v1/coding-sessions/${cancelled.id}/launch-link`, {});
    await call('POST', `/v1/coding-sessions/${cancelled.id}/cancel`);
    await page.goto(link.body.url);
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('heading', { name: 'This assessment was cancelled' }).waitFor();

    await page.goto(`${base}/launch#token=not-a-real-token`);
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('heading', { name: 'This link can no longer be used' }).waitFor();

    const used = await assignSession('Katherine Johnson');
    const usedLink = await call('POST', `/v1/coding-sessions/${used.id}/launch-link`, {});
    const token = new URL(usedLink.body.url).hash.replace('#token=', '');
    expect((await h.app.inject({ method: 'POST', url: '/v1/launch/exchange', payload: { token } })).statusCode).toBe(201);
    await page.goto(usedLink.body.url);
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('heading', { name: 'This link can no longer be used' }).waitFor();
    expect(await page.locator('body').textContent()).not.toMatch(/at .*\.js|TypeError|undefined/);

    // Finished: a link minted before the candidate finished (from the customer's own page).
    const finished = await assignSession('Mary Jackson');
    const finishedLink = await call('POST', `/v1/coding-sessions/${finished.id}/launch-link`, {});
    await finishThroughApi(finished.id);
    await page.goto(finishedLink.body.url);
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('heading', { name: 'You have already finished this assessment' }).waitFor();

    // Expired: the 7-day assignment window lapsed before the candidate opened the link.
    const lapsed = await assignSession('Dorothy Vaughan');
    const lapsedLink = await call('POST', `/v1/coding-sessions/${lapsed.id}/launch-link`, {});
    h.clock.advance(8 * 86_400_000);
    await page.goto(lapsedLink.body.url);
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('heading', { name: 'This assessment has expired' }).waitFor();
    await page.screenshot({ path: path.join(shots, '5-expired-link.png') });
    await page.close();
  }, 60_000);

  it('a reload resumes the room with a refreshed token; time running out ends on the timed-out page', async () => {
    const session = await assignSession('Annie Easley');
    const link = await call('POST', `/v1/coding-sessions/${session.id}/launch-link`, {});
    const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
    await context.clock.install();
    const page = await context.newPage();
    await page.goto(link.body.url);
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('heading', { name: session.problem.title }).waitFor();

    // A reload twelve minutes later resumes the room (the link is used by now): the kept token is due for
    // refresh, so the page refreshes it before anything else, and works on.
    h.clock.advance(12 * 60_000);
    await page.clock.setSystemTime(Date.now() + 12 * 60_000);
    await page.reload();
    await page.getByRole('heading', { name: session.problem.title }).waitFor();
    expect(await page.getByRole('button', { name: 'Start' }).count()).toBe(0);
    const refreshes = await h.db.kysely.selectFrom('session_tokens').select('source').where('subject_id', '=', session.id).where('source', '=', 'refresh').execute();
    expect(refreshes).toHaveLength(1);
    await expect.poll(() => page.getByRole('timer').textContent()).toMatch(/^4[78]:\d\d$/);

    // The server's clock passes the deadline and its timeout job runs; the room learns it at its next poll.
    h.clock.advance(50 * 60_000);
    await expect.poll(async () => (await call('GET', `/v1/coding-sessions/${session.id}`)).body.status, { timeout: 30_000 }).toBe('timed_out');
    await page.clock.fastForward('01:01:00');
    await page.getByRole('heading', { name: 'Time is up' }).waitFor({ timeout: 15_000 });
    await page.screenshot({ path: path.join(shots, '6-timed-out.png') });
    await context.close();
  }, 60_000);

  it('the embed widget on a customer page from another origin: refreshes its token, submits, finishes', async () => {
    const session = await assignSession('Alan Turing');
    const hostPort = await freePort();
    const exampleHost = await startExampleHost({
      port: hostPort, prepUrl: base, secretKey: h.org.keys.secret_test, publishableKey: h.org.keys.publishable_test, codingSessionId: session.id,
    });
    try {
      expect(new URL(exampleHost.origin).origin).not.toBe(new URL(base).origin);
      expect((await call('POST', '/v1/domains', { origin: exampleHost.origin })).status).toBe(201);
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      await context.clock.install();
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      const apiCalls: Array<{ url: string; origin: string | null; authorization: string | null }> = [];
      page.on('request', async (r) => {
        if (!r.url().startsWith(base + '/v1/coding-sessions')) return;
        const headers = await r.allHeaders();
        apiCalls.push({ url: r.url(), origin: headers.origin ?? null, authorization: headers.authorization ?? null });
      });

      await page.goto(exampleHost.origin + '/');
      const activity = page.locator('#activity');
      await activity.locator('[data-event="prep:ready"]').waitFor();
      await activity.locator('[data-event="prep:started"]').waitFor();
      await page.getByRole('heading', { name: session.problem.title }).waitFor();
      const firstToken = apiCalls.find((c) => c.authorization)!.authorization;

      // Eleven minutes pass on both clocks: the widget refreshes its token at refresh_after (10 minutes in).
      h.clock.advance(11 * 60_000);
      await page.clock.fastForward('11:00');
      await activity.locator('[data-event="prep:token-refreshed"]').waitFor({ timeout: 15_000 });
      const refreshed = await h.db.kysely.selectFrom('session_tokens').select(['source', 'origin']).where('subject_id', '=', session.id).where('source', '=', 'refresh').execute();
      expect(refreshed).toEqual([{ source: 'refresh', origin: exampleHost.origin }]);
      // Five more minutes: the first token (15 minutes) is dead; the widget keeps working on the refreshed one.
      h.clock.advance(5 * 60_000);

      await typeSolution(page, session.solution);
      await page.getByRole('button', { name: 'Submit' }).click();
      await activity.locator('[data-event="prep:submission"]').waitFor({ timeout: 15_000 });
      await page.locator('.prep-submission .prep-verdict', { hasText: 'Accepted' }).waitFor({ timeout: 60_000 });
      await activity.locator('[data-event="prep:progress"]', { hasText: '"verdict":"ACCEPTED"' }).waitFor();
      const submitCall = apiCalls.find((c) => c.url.endsWith('/submissions'))!;
      expect(submitCall.origin).toBe(exampleHost.origin);
      expect(submitCall.authorization).not.toBe(firstToken);
      await page.screenshot({ path: path.join(shots, '4-embedded.png') });

      await page.getByRole('button', { name: 'Finish' }).click();
      await page.getByRole('button', { name: 'Finish now' }).click();
      await page.getByRole('heading', { name: 'Thank you — you are done' }).waitFor();
      await activity.locator('[data-event="prep:completed"]', { hasText: '"status":"completed"' }).waitFor();
      const event = await completedEventFor(session.id);
      expect(event.data.object).toMatchObject({ id: session.id, problems_solved: 1 });
      expect(errors).toEqual([]);
      await context.close();
    } finally {
      await exampleHost.close();
    }
  }, 180_000);

  it('the embed script defines PrepEmbed at once; if the widget module cannot be fetched, the page hears prep:error', async () => {
    const customer = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<div id="room"></div>
      <script src="${base}/embed.js"></script><script>
        window.heard = [];
        document.getElementById('room').addEventListener('prep:error', (e) => window.heard.push(e.detail.code));
        window.handle = PrepEmbed.mount('#room', { publishableKey: 'svc_pk_test_x', sessionToken: 'not-used' });
      </script>`));
    await new Promise<void>((resolve) => customer.listen(0, '127.0.0.1', resolve));
    const page = await browser.newPage();
    try {
      await page.route('**/room/embed-room.js', (route) => route.abort('connectionrefused'));
      await page.goto(`http://localhost:${(customer.address() as { port: number }).port}/`);
      expect(await page.evaluate('typeof window.handle.setSession')).toBe('function');
      await expect.poll(() => page.evaluate('window.heard')).toEqual(['network_error']);
      await expect(page.evaluate(`PrepEmbed.mount('#nope', { publishableKey: 'k', sessionToken: 't' })`)).rejects.toThrow(/no element matches #nope/);
    } finally {
      await page.close();
      customer.close();
    }
  });
});

/** Finishes a session the way a customer's own room would: a session token, then finalize. */
async function finishThroughApi(sessionId: string) {
  const origin = 'https://careers.acme.test';
  await call('POST', '/v1/domains', { origin });
  const minted = await call('POST', '/v1/sessions', { origin, coding_session_id: sessionId });
  const headers = { ...bearer(minted.body.session_token), origin };
  expect((await h.app.inject({ method: 'POST', url: `/v1/coding-sessions/${sessionId}/start`, headers })).statusCode).toBe(200);
  expect((await h.app.inject({ method: 'POST', url: `/v1/coding-sessions/${sessionId}/finalize`, headers })).statusCode).toBe(202);
  await expect.poll(async () => (await call('GET', `/v1/coding-sessions/${sessionId}`)).body.status, { timeout: 30_000 }).toBe('completed');
}

async function firstExampleInput(sessionId: string): Promise<string> {
  const detail = await h.app.inject({ method: 'GET', url: `/v1/coding-sessions/${sessionId}`, headers: bearer(h.org.keys.secret_test) });
  return (detail.json() as any).problems[0].problem.examples[0].input;
}
