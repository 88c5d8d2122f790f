import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, freePort, launchBrowser, screenshotDir } from '../helpers/browser.js';
import { testClient } from '../helpers/client.js';
import { startFakeModel, type FakeModel } from '../helpers/fake-model.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { fixtureReply, promptKit } from '../helpers/prompt-engineering.js';
import { testWorker } from '../helpers/settle.js';

let h: Harness;
let model: FakeModel;
let browser: Browser;
let shots: string;
let worker: ReturnType<typeof testWorker>;

describe.skipIf(!browserAvailable)('the prompt workspace in Chromium, against the fake model', () => {
  beforeAll(async () => {
    const port = await freePort();
    model = await startFakeModel(fixtureReply);
    h = await startHarness({ env: { ...model.env, PREP_PUBLIC_URL: `http://127.0.0.1:${port}`, PREP_RATE_LIMIT: '100000', PREP_RATE_LIMIT_MODEL: '100000' } });
    await h.app.listen({ port, host: '127.0.0.1' });
    await h.services.signingKeys.ensureKey();
    worker = testWorker(h, 20);
    await worker.start();
    browser = await launchBrowser();
    shots = screenshotDir();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await h?.close();
    await model?.close();
  });

  it('brief and samples, highlighted variables, submit and results, attempts left, a reload keeps everything, finish', async () => {
    const key = h.org.keys.secret_test;
    const client = testClient(h);
    const { assessmentId } = await promptKit(h).fixture(h.org.id);
    const assigned = await client.assign(key, 'prompt_engineering', assessmentId, await client.candidate(key, { name: 'Grace Hopper' }));
    const link = await client.ok('POST', `/v1/prompt-engineering-sessions/${assigned.id}/launch-link`, { key, body: {} });

    const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(link.url);
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('heading', { name: 'Echo an item as JSON' }).waitFor();
    await page.getByText('Sample case: sample-alpha').waitFor();
    expect(await page.getByText('3 attempts left').count()).toBe(1);

    // A prompt without {{style}} is stopped in the room, naming it.
    const editor = page.locator('.prep-prompt-editor .cm-content');
    await editor.click();
    await page.keyboard.type('You are a data clerk. GOOD. Return only JSON for <in>{{input}}</in>. Mention {{colour}}.');
    expect(await page.locator('.prep-prompt-editor .prep-var').count()).toBe(2);
    expect(await page.locator('.prep-prompt-editor .prep-var-unknown').count()).toBe(1); // {{colour}} is not a variable
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByText('{{style}} is missing').waitFor();

    await editor.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' Format: {{style}}.');
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByText('Score 100 of 100 · 2 of 2 hidden cases passed').waitFor({ timeout: 20_000 });
    expect(await page.getByText('2 attempts left').count()).toBe(1);
    await page.getByText('sample-alpha', { exact: true }).click(); // the sample case's details
    await page.getByText('{"name": "Alpha", "count": 3}').first().waitFor();
    expect(await page.locator('.prep-assertions li.prep-ok').count()).toBe(13);
    expect(await page.locator('tr', { hasText: 'hidden-1' }).getByText('Pass').count()).toBe(1);
    await page.screenshot({ path: path.join(shots, 'p1-prompt-results.png') });

    // A reload keeps the draft and shows the last attempt again.
    await page.reload();
    await page.getByText('Score 100 of 100 · 2 of 2 hidden cases passed').waitFor();
    expect(await page.locator('.prep-prompt-editor .cm-content').textContent()).toContain('Format: {{style}}.');

    await page.getByRole('button', { name: 'Finish' }).click();
    await page.getByRole('heading', { name: 'Finish the assessment?' }).waitFor();
    await page.getByRole('button', { name: 'Finish now' }).click();
    await page.getByRole('heading', { name: 'Thank you — you are done' }).waitFor();

    await expect.poll(async () => (await client.call('GET', `/v1/prompt-engineering-sessions/${assigned.id}/report`, { key })).status, { timeout: 20_000 }).toBe(200);
    const report = await client.call('GET', `/v1/prompt-engineering-sessions/${assigned.id}/report`, { key });
    expect(report.body).toMatchObject({ overall_score: 100, tasks_passed: 1, execution: 'executed' });
    expect(errors).toEqual([]);
  }, 120_000);
});
