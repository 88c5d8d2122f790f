import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: the example is plain JavaScript, shipped for customers to copy
import { startExampleHost } from '../../examples/embed/server.mjs';
import { browserAvailable, FAKE_MEDIA, freePort, launchBrowser, screenshotDir } from '../helpers/browser.js';
import type { Harness, Org } from '../helpers/harness.js';
import { startHarness } from '../helpers/harness.js';
import { interviewKit, type InterviewKit } from '../helpers/interviews.js';
import { testWorker } from '../helpers/settle.js';

let h: Harness;
let kit: InterviewKit;
let org: Org;
let browser: Browser;
let shots: string;
let base: string;
let worker: ReturnType<typeof testWorker>;

const interviewOf = (id: string, key = org.keys.secret_test) => kit.client.ok('GET', `/v1/interviews/${id}`, { key }, 200);

/** Types an answer in the room and waits for the interviewer's next turn after it. */
async function answer(page: Page, text: string) {
  const before = await page.locator('.prep-turn-interviewer').count();
  await page.getByLabel('Your answer').fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await page.locator('.prep-turn-candidate', { hasText: text.slice(0, 40) }).waitFor();
  await expect.poll(() => page.locator('.prep-turn-interviewer:not(.prep-turn-pending)').count(), { timeout: 15_000 }).toBeGreaterThan(before);
}

/** The page believes it was left (another tab, a minimised window), then comes back. */
const setVisibility = (page: Page, state: 'hidden' | 'visible') => page.evaluate(`
  Object.defineProperty(document, 'visibilityState', { value: '${state}', configurable: true });
  Object.defineProperty(document, 'hidden', { value: ${state === 'hidden'}, configurable: true });
  document.dispatchEvent(new Event('visibilitychange'));`);

/** Draws a box and a stroke on the whiteboard with the mouse. */
async function draw(page: Page) {
  const canvas = page.getByLabel(/Whiteboard drawing area/);
  const box = (await canvas.boundingBox())!;
  await page.getByRole('button', { name: 'Rectangle' }).click();
  await page.mouse.move(box.x + 40, box.y + 40);
  await page.mouse.down();
  await page.mouse.move(box.x + 160, box.y + 110, { steps: 5 });
  await page.mouse.up();
  await page.getByRole('button', { name: 'Pen' }).click();
  await page.mouse.move(box.x + 200, box.y + 60);
  await page.mouse.down();
  await page.mouse.move(box.x + 260, box.y + 120, { steps: 8 });
  await page.mouse.up();
}

const SOLUTION = 'import sys\nprint(sys.stdin.read().strip()[::-1] or "ready")';

const canRun = process.getuid?.() === 0; // the sandbox drops each run to its own uid

describe.skipIf(!browserAvailable || !canRun)('the interview room in Chromium', () => {
  beforeAll(async () => {
    const port = await freePort();
    h = await startHarness({ env: { PREP_PUBLIC_URL: `http://127.0.0.1:${port}`, PREP_RATE_LIMIT: '100000', PREP_SANDBOX_UID_BASE: '610000', PREP_SANDBOX_SLOTS: '2' } });
    base = await h.app.listen({ port, host: '127.0.0.1' });
    kit = await interviewKit(h);
    org = await kit.organization('Acme Interviews');
    await h.services.signingKeys.ensureKey();
    worker = testWorker(h, 50);
    await worker.start();
    browser = await launchBrowser(FAKE_MEDIA);
    shots = screenshotDir();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await h?.close();
  });

  it('hosted link, test mode: a typed interview with code, a whiteboard snapshot, pause and resume, a reconnect, a second tab refused, and no recording', async () => {
    const key = org.keys.secret_test;
    const interview = await kit.create(key, { round_type: 'live-coding', role: 'Backend Engineer' }, await kit.client.candidate(key, { name: 'Ada Lovelace' }));
    const link = await kit.client.ok('POST', `/v1/interviews/${interview.id}/launch-link`, { key, body: {} }, 201);

    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(link.url);
    await page.getByText('an interview with an AI interviewer').waitFor();
    await page.screenshot({ path: path.join(shots, 'i1-launch.png') });
    await page.getByRole('button', { name: 'Start' }).click();

    // The lobby: test mode says nothing is recorded; voice is optional.
    await page.getByText('This is a practice interview (test mode): nothing is recorded.').waitFor();
    const voice = page.getByLabel('Answer by voice (you can always type)');
    if (await voice.count()) await voice.uncheck();
    await page.screenshot({ path: path.join(shots, 'i2-lobby-test-mode.png') });
    await page.getByRole('button', { name: 'Join the interview' }).click();

    // The interviewer opens; the candidate types.
    await page.locator('.prep-turn-interviewer').first().waitFor({ timeout: 15_000 });
    expect((await interviewOf(interview.id)).status).toBe('in_progress');
    await answer(page, 'I would use a hash map keyed by the value, walking the array once, so it is linear time and linear memory.');

    // Code: written in the editor, run through the interview's code operation, output shown.
    const editor = page.locator('.prep-editor .cm-content');
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(SOLUTION);
    await expect.poll(() => page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('prep:')).length)).toBeGreaterThan(0); // a draft
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.locator('.prep-run .prep-verdict', { hasText: 'Ran' }).waitFor({ timeout: 30_000 });
    expect(await page.locator('.prep-run pre').first().textContent()).toContain('ready');

    // The whiteboard: drawn, shared, uploaded as a PNG into the transcript.
    await page.getByRole('tab', { name: 'Whiteboard' }).click();
    await draw(page);
    const items = () => page.getByLabel(/Whiteboard drawing area/).getAttribute('data-items');
    expect(await items()).toBe('2');
    // A note by keyboard: Text, Enter on the canvas, type, Enter adds it once; Escape drops one.
    await page.getByRole('button', { name: 'Text' }).click();
    await page.getByLabel(/Whiteboard drawing area/).focus();
    await page.keyboard.press('Enter');
    await page.getByLabel('Note text').fill('cache in front');
    await page.getByLabel('Note text').press('Enter');
    expect(await items()).toBe('3');
    await page.keyboard.press('Enter');
    await page.getByLabel('Note text').fill('dropped');
    await page.getByLabel('Note text').press('Escape');
    expect(await items()).toBe('3');
    await page.getByRole('button', { name: 'Share with interviewer' }).click();
    await page.getByText('Shared 1 snapshot').waitFor({ timeout: 15_000 });
    await page.screenshot({ path: path.join(shots, 'i3-whiteboard.png') });

    // What is drawn while a snapshot uploads was not in it: it stays to share (End shares it, below).
    let releaseUpload!: () => void;
    const uploadHeld = new Promise<void>((resolve) => (releaseUpload = resolve));
    let uploadStarted!: () => void;
    const uploading = new Promise<void>((resolve) => (uploadStarted = resolve));
    await page.route('**/files/**', async (route) => {
      if (route.request().method() !== 'PUT') return route.continue();
      uploadStarted();
      await uploadHeld;
      await route.continue();
    });
    await page.getByRole('button', { name: 'Share with interviewer' }).click();
    await uploading;
    await draw(page);
    expect(await items()).toBe('5');
    releaseUpload();
    await page.getByText('Shared 2 snapshots').waitFor({ timeout: 15_000 });
    await page.unroute('**/files/**');

    // Leaving the page pauses the clock; coming back resumes it.
    await setVisibility(page, 'hidden');
    await expect.poll(async () => (await interviewOf(interview.id)).status, { timeout: 10_000 }).toBe('paused');
    await setVisibility(page, 'visible');
    await expect.poll(async () => (await interviewOf(interview.id)).status, { timeout: 10_000 }).toBe('in_progress');
    await page.getByRole('tab', { name: 'Code' }).click();

    // A network loss: the server side of the socket dies; an answer typed meanwhile is sent once on reconnect.
    const sockets = [...h.app.websocketServer.clients];
    expect(sockets.length).toBe(1);
    await context.setOffline(true);
    sockets.forEach((s) => s.terminate());
    await page.getByText('Reconnecting…').waitFor();
    const offline = 'While offline: I would test it with an empty list, a single element and duplicates at both ends.';
    await page.getByLabel('Your answer').fill(offline);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await context.setOffline(false);
    await page.locator('.prep-turn-candidate', { hasText: 'While offline' }).waitFor({ timeout: 20_000 });
    await expect.poll(() => page.getByText('Reconnecting…').count(), { timeout: 10_000 }).toBe(0);

    // A second tab (a fresh link for the same interview) is refused politely while the first is live.
    const link2 = await kit.client.ok('POST', `/v1/interviews/${interview.id}/launch-link`, { key, body: {} }, 201);
    const second = await context.newPage();
    await second.goto(link2.url);
    await second.getByRole('button', { name: 'Start' }).click();
    await second.getByRole('button', { name: 'Return to the interview' }).click();
    await second.getByText('This interview is open in another tab or window.').waitFor({ timeout: 15_000 });
    await second.screenshot({ path: path.join(shots, 'i4-second-tab.png') });
    await second.close();
    // Closing the refused tab does not pause the interview in the first: it still takes answers.
    await answer(page, 'I would also add a property test comparing against a brute-force version.');

    await page.screenshot({ path: path.join(shots, 'i5-conversation.png') });
    await page.getByRole('button', { name: 'End interview' }).click();
    await page.getByRole('heading', { name: 'End the interview?' }).waitFor();
    await page.getByRole('button', { name: 'End now' }).click();
    await page.getByRole('heading', { name: 'Thank you — you are done' }).waitFor();
    // Was a bug: the code editor's drafts stayed in localStorage, on the service's origin every candidate shares.
    await expect.poll(() => page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('prep:')))).toEqual([]);

    // The transcript holds each turn once, the code run and the whiteboard image; test mode records nothing.
    await expect.poll(async () => (await interviewOf(interview.id)).status, { timeout: 30_000 }).toMatch(/completed|failed/);
    const transcript = await kit.client.ok('GET', `/v1/interviews/${interview.id}/transcript`, { key }, 200);
    const turns = transcript.turns as Array<{ speaker: string; kind: string; text: string }>;
    expect(turns.filter((t) => t.text.startsWith('While offline')).length).toBe(1);
    expect(turns.some((t) => t.kind === 'code')).toBe(true);
    // Two shared by hand and, at End, the one with what was drawn during the second upload.
    expect(turns.filter((t) => t.kind === 'board').length).toBe(3);
    const recording = await kit.client.call('GET', `/v1/interviews/${interview.id}/recording-url`, { key });
    expect(recording.status).toBe(404);
    expect(recording.body.error.code).toBe('recording_not_ready');
    expect(errors).toEqual([]);
    await context.close();
  }, 180_000);

  it('cancelled while the candidate reads the lobby: joining shows the cancelled page, not an error', async () => {
    const key = org.keys.secret_test;
    const interview = await kit.create(key, { round_type: 'behavioral' }, await kit.client.candidate(key, { name: 'Mary Jackson' }));
    const link = await kit.client.ok('POST', `/v1/interviews/${interview.id}/launch-link`, { key, body: {} }, 201);
    const page = await browser.newPage();
    await page.goto(link.url);
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('button', { name: 'Join the interview' }).waitFor();
    await kit.client.ok('POST', `/v1/interviews/${interview.id}/cancel`, { key }, 200);
    await page.getByRole('button', { name: 'Join the interview' }).click();
    await page.getByRole('heading', { name: 'This assessment was cancelled' }).waitFor();
    await page.close();
  });

  it('taking over in a second tab after closing the first: "Use this tab" resumes the interview the closed tab paused', async () => {
    const key = org.keys.secret_test;
    const interview = await kit.create(key, { round_type: 'behavioral' }, await kit.client.candidate(key, { name: 'Dorothy Vaughan' }));
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const open = async () => {
      const link = await kit.client.ok('POST', `/v1/interviews/${interview.id}/launch-link`, { key, body: {} }, 201);
      const tab = await context.newPage();
      await tab.goto(link.url);
      await tab.getByRole('button', { name: 'Start' }).click();
      const voice = tab.getByLabel('Answer by voice (you can always type)');
      if (await voice.count()) await voice.uncheck();
      await tab.getByRole('button', { name: /Join the interview|Return to the interview/ }).click();
      return tab;
    };
    const first = await open();
    await first.locator('.prep-turn-interviewer').first().waitFor({ timeout: 15_000 });
    const second = await open();
    await second.getByText('This interview is open in another tab or window.').waitFor({ timeout: 15_000 });
    await first.close({ runBeforeUnload: true }); // its pagehide pauses the interview
    await expect.poll(async () => (await interviewOf(interview.id)).status, { timeout: 10_000 }).toBe('paused');
    await second.getByRole('button', { name: 'Use this tab' }).click();
    await expect.poll(async () => (await interviewOf(interview.id)).status, { timeout: 10_000 }).toBe('in_progress');
    await answer(second, 'I took over in this tab and carried on with the answer.');
    expect(await second.getByRole('timer').textContent()).not.toContain('Paused');
    await context.close();
  });

  it('answers by voice: a blocked microphone leaves typing; interim speech fills the box to edit and send; silence sends', async () => {
    const key = org.keys.secret_test;
    const interview = await kit.create(key, { round_type: 'behavioral', role: 'Product Manager' }, await kit.client.candidate(key, { name: 'Alan Turing' }));
    const link = await kit.client.ok('POST', `/v1/interviews/${interview.id}/launch-link`, { key, body: {} }, 201);
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    // The browser's recognition, scripted: each start plays the next entry of window.speechPlan.
    await context.addInitScript(`
      window.speechPlan = [{ error: 'not-allowed' }, { say: ['I would', 'I would start with the users'] }, {}, { say: ['Then I measured the outcome'] }];
      window.SpeechRecognition = class {
        start() {
          const plan = window.speechPlan.shift() ?? {};
          setTimeout(() => {
            if (plan.error) { this.onerror?.({ error: plan.error }); this.onend?.(); return; }
            (plan.say ?? []).forEach((text, i, all) => setTimeout(() => {
              const final = i === all.length - 1;
              const result = Object.assign([{ transcript: text }], { isFinal: final });
              this.onresult?.({ resultIndex: 0, results: Object.assign([result], { length: 1 }) });
            }, 40 * i));
          }, 30);
        }
        stop() { setTimeout(() => this.onend?.(), 10); }
        abort() { this.stop(); }
      };`);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(link.url);
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByLabel('Answer by voice (you can always type)').check();
    await page.getByLabel("Read the interviewer's questions aloud").uncheck(); // nothing to wait for before listening
    await page.getByRole('button', { name: 'Join the interview' }).click();
    await page.locator('.prep-turn-interviewer').first().waitFor({ timeout: 15_000 });

    // The room listened after the question; the microphone was blocked: a sentence, and typing goes on.
    await page.getByText('The microphone is blocked for this page, so answers are typed.').waitFor();
    await answer(page, 'I would first talk to the customers who complained, then look at the numbers.');

    // Voice again: the words appear as they are heard, after what was typed; a silence ends the turn and leaves the
    // answer in the box, focused, to edit and send.
    await page.getByLabel('Your answer').fill('Well,');
    await page.getByRole('button', { name: 'Answer by voice' }).click();
    await expect.poll(() => page.getByLabel('Your answer').inputValue()).toBe('Well, I would start with the users');
    // This recognition cannot work on the device (no processLocally): the room says where the voice goes.
    await page.getByText("Your browser turns your voice into text on its maker's servers").waitFor();
    await page.getByRole('button', { name: 'Answer by voice' }).waitFor({ timeout: 10_000 }); // the silence stopped listening
    expect(await page.evaluate(`document.activeElement.id`)).toBe('prep-answer');
    await page.getByLabel('Your answer').press('End');
    await page.getByLabel('Your answer').pressSequentially(' and what they need.');
    const before = await page.locator('.prep-turn-interviewer:not(.prep-turn-pending)').count();
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.locator('.prep-turn-candidate', { hasText: 'Well, I would start with the users and what they need.' }).waitFor();
    await expect.poll(() => page.locator('.prep-turn-interviewer:not(.prep-turn-pending)').count(), { timeout: 15_000 }).toBeGreaterThan(before);

    // With voice on, the room listens again by itself after the interviewer's question; Stop listening ends it.
    await page.getByRole('button', { name: 'Stop listening' }).click();
    await page.getByRole('button', { name: 'Answer by voice' }).waitFor();

    // Send when I stop talking: the answer goes on its own after the silence.
    await page.getByLabel('Send when I stop talking').check();
    await page.getByRole('button', { name: 'Answer by voice' }).click();
    await page.locator('.prep-turn-candidate', { hasText: 'Then I measured the outcome' }).waitFor({ timeout: 10_000 });
    expect(await page.getByLabel('Your answer').inputValue()).toBe('');
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  it('the embed on a customer page, live mode: the consent notice, a typed conversation, and the microphone recorded in pieces', async () => {
    const key = org.keys.secret_live;
    const interview = await kit.create(key, { round_type: 'behavioral', role: 'Engineering Manager' }, await kit.client.candidate(key, { name: 'Grace Hopper' }));
    const hostPort = await freePort();
    const exampleHost = await startExampleHost({ port: hostPort, prepUrl: base, secretKey: key, publishableKey: org.keys.publishable_live, interviewId: interview.id });
    try {
      await kit.client.allowOrigin(key, exampleHost.origin);
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, permissions: ['microphone'] });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      // Pieces of a second instead of ten, so a short test records several; and every upload counted.
      await page.addInitScript(`{
        const start = MediaRecorder.prototype.start;
        MediaRecorder.prototype.start = function () { return start.call(this, 1000); };
      }`);
      let pieces = 0;
      page.on('response', (r) => { if (r.request().method() === 'PUT' && r.ok()) pieces += 1; }); // only recording pieces are PUT here
      await page.goto(exampleHost.origin + '/');
      await page.locator('#activity [data-event="prep:ready"]').waitFor();
      await page.getByRole('heading', { name: 'This interview is recorded' }).waitFor();
      await page.screenshot({ path: path.join(shots, 'i6-embed-consent.png') });
      const voice = page.getByLabel('Answer by voice (you can always type)');
      if (await voice.count()) await voice.uncheck();
      await page.getByRole('button', { name: 'I agree — join the interview' }).click();
      await page.locator('#activity [data-event="prep:started"]').waitFor();
      await page.getByText('Recording your microphone').waitFor({ timeout: 15_000 });
      expect(await page.getByRole('timer').textContent()).toMatch(/^\d+:\d\d$/); // the join's clock, shown at once
      await page.locator('.prep-turn-interviewer').first().waitFor({ timeout: 15_000 });
      await answer(page, 'In my last role I led the migration of our billing service; I planned the cut-over, wrote the runbook and we shipped it with no downtime.');
      await page.screenshot({ path: path.join(shots, 'i7-embed-live.png') });
      await expect.poll(() => pieces, { timeout: 15_000 }).toBeGreaterThanOrEqual(3); // the candidate talks on a while

      await page.getByRole('button', { name: 'End interview' }).click();
      await page.getByRole('button', { name: 'End now' }).click();
      await page.getByRole('heading', { name: 'Thank you — you are done' }).waitFor({ timeout: 20_000 });
      await page.locator('#activity [data-event="prep:completed"]').waitFor();

      // The pieces were uploaded through the channel's signed URLs and joined into one recording.
      await expect.poll(async () => (await interviewOf(interview.id, key)).status, { timeout: 30_000 }).toMatch(/completed|failed/);
      const recording = await kit.client.ok('GET', `/v1/interviews/${interview.id}/recording-url`, { key }, 200);
      const file = await h.app.inject({ method: 'GET', url: new URL(recording.url).pathname + new URL(recording.url).search });
      expect(file.statusCode).toBe(200);
      expect(file.rawPayload.length).toBeGreaterThan(20_000); // seconds of sound in several pieces, not one piece's header
      expect(file.rawPayload.subarray(0, 4).toString('hex')).toBe('1a45dfa3'); // WebM (EBML)
      expect(errors).toEqual([]);
      await context.close();
    } finally {
      await exampleHost.close();
    }
  }, 180_000);

  // Was a bug: a room that ended on a refused token ("Your session has ended") kept the microphone open and
  // recording, the channel connected and the voice speaking: only the finished, timed-out, cancelled and expired
  // endings stopped them.
  it('the embed, live mode: a session revoked mid-interview stops the microphone when the room says it ended', async () => {
    const key = org.keys.secret_live;
    const interview = await kit.create(key, { round_type: 'behavioral', role: 'Engineering Manager' }, await kit.client.candidate(key, { name: 'Ada Lovelace' }));
    const hostPort = await freePort();
    const exampleHost = await startExampleHost({ port: hostPort, prepUrl: base, secretKey: key, publishableKey: org.keys.publishable_live, interviewId: interview.id });
    try {
      await kit.client.allowOrigin(key, exampleHost.origin);
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, permissions: ['microphone'] });
      const page = await context.newPage();
      await page.addInitScript(`{
        window.__streams = [];
        const get = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
        navigator.mediaDevices.getUserMedia = async (c) => { const s = await get(c); window.__streams.push(s); return s; };
      }`);
      await page.goto(exampleHost.origin + '/');
      await page.locator('#activity [data-event="prep:ready"]').waitFor();
      const voice = page.getByLabel('Answer by voice (you can always type)');
      if (await voice.count()) await voice.uncheck();
      await page.getByRole('button', { name: 'I agree — join the interview' }).click();
      await page.getByText('Recording your microphone').waitFor({ timeout: 15_000 });
      const live = () => page.evaluate('window.__streams.flatMap((s) => s.getTracks()).filter((t) => t.readyState === "live").length');
      expect(await live()).toBeGreaterThan(0);

      const tokens = await h.db.kysely.selectFrom('session_tokens').select('jti').where('subject_id', '=', interview.id).execute();
      for (const { jti } of tokens) await h.app.inject({ method: 'DELETE', url: `/v1/sessions/${jti}`, headers: { authorization: `Bearer ${key}` } });
      // Back from another tab: the room joins again, which is refused.
      await setVisibility(page, 'hidden');
      await setVisibility(page, 'visible');
      await page.getByRole('heading', { name: 'Your session has ended' }).waitFor({ timeout: 15_000 });
      await expect.poll(live, { timeout: 5_000 }).toBe(0);
      await context.close();
    } finally {
      await exampleHost.close();
    }
  }, 180_000);
});
