import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness, Org } from '../helpers/harness.js';
import { interviewSuite, putSigned, tinyPng, type InterviewKit } from '../helpers/interviews.js';
import { settleJobs, testWorker } from '../helpers/settle.js';
import { PARTIAL_KEPT_MS } from '../../src/storage/local.js';

let h: Harness;
let kit: InterviewKit;
let org: Org;

const PNG = tinyPng();

beforeAll(async () => {
  ({ h, kit, org } = await interviewSuite());
});
afterAll(async () => {
  await h.close();
});

const put = (url: string, body: Buffer) => putSigned(h, url, body);

describe('erasing the candidate of an interview', () => {
  it('ends the live interview, deletes the words, the whiteboard images and the recording pieces, and never makes a recording', async () => {
    const key = org.keys.secret_live;
    const { interview, token, channel } = await kit.started(key);
    await channel.answer('At my last job I led the migration of our billing system to a new database.');
    const board = await kit.client.ok('POST', `/v1/interviews/${interview.id}/board-upload-url`, { token });
    expect((await put(board.upload_url, PNG)).statusCode).toBe(200);
    channel.send({ type: 'recording.chunk_url', index: 0 });
    const piece = await channel.next('recording.chunk_url');
    expect((await put(piece.url, Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), Buffer.from('audio')]))).statusCode).toBe(200);
    // A piece past a gap (a lost upload): erasure finds it too.
    const at = channel.messages.length;
    channel.send({ type: 'recording.chunk_url', index: 7 });
    expect((await put((await channel.next('recording.chunk_url', at)).url, Buffer.from('later audio'))).statusCode).toBe(200);
    const storage = h.services.files.storage;
    expect(await storage.head(`interviews/${org.id}/${interview.id}/recording/000007.part`)).not.toBeNull();
    expect(await storage.head(board.key)).not.toBeNull();

    await kit.client.ok('DELETE', `/v1/candidates/${interview.candidate_id}`, { key }, 200);
    await channel.next('ended');
    await settleJobs(h, ['interview.erase-files', 'interview.process'], 'erasure and processing');

    expect(await storage.head(board.key)).toBeNull();
    expect(await storage.head(`interviews/${org.id}/${interview.id}/recording/000000.part`)).toBeNull();
    expect(await storage.head(`interviews/${org.id}/${interview.id}/recording/000007.part`)).toBeNull();
    const after = await kit.client.ok('GET', `/v1/interviews/${interview.id}`, { key }, 200);
    expect(after).toMatchObject({ candidate_id: null, end_reason: 'abandoned' });
    const turns = await h.db.kysely.selectFrom('interview_turns').select('text').where('interview_id', '=', interview.id).execute();
    expect(turns).toEqual([]);
    const recording = await kit.call('GET', `/v1/interviews/${interview.id}/recording-url`, { key });
    expect(recording.body.error.code).toBe('recording_not_ready');
  });
});

describe('erasing the candidate after a recording join was cut short', () => {
  // Was a bug: local storage wrote a file to `<key>.<random>.part` and renamed it into place; a worker killed while
  // it joined the recording left that file, the candidate's voice, beside the interview's files, and the erasure
  // deleted only the names it knew (the recording, its pieces' folder): it stayed for good. Writes now go through
  // `.partial/`, which the hourly sweep empties of files an hour old; the erasure deletes the interview's folder.
  it('leaves nothing in the interview\'s folder, and the sweep takes what the killed join left', async () => {
    const key = org.keys.secret_live;
    const { interview, channel } = await kit.started(key);
    await channel.answer('At my last job I led the migration of our billing system to a new database.');
    const folder = path.join(h.config.storage.dir, 'interviews', org.id, interview.id);
    const partials = path.join(h.config.storage.dir, '.partial');
    const filesIn = (dir: string) => (existsSync(dir) ? readdirSync(dir, { recursive: true, withFileTypes: true }) : []).filter((f) => f.isFile()).map((f) => f.name);
    const before = new Set(filesIn(partials));
    // The join, stopped mid-write as a killed worker leaves it: a first part written, the rest never comes.
    let cut!: (error: Error) => void;
    const stopped = new Promise<never>((_, reject) => (cut = reject));
    async function* voice() {
      yield Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), Buffer.from('the candidate speaking')]);
      await stopped;
    }
    const join = h.services.files.storage.writeParts(`interviews/${org.id}/${interview.id}/recording.webm`, voice(), 'audio/webm');
    const left = () => filesIn(partials).filter((f) => !before.has(f));
    for (let i = 0; i < 100 && left().length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(left()).toHaveLength(1);
    expect(filesIn(folder).filter((f) => f.startsWith('recording.webm'))).toEqual([]);

    await kit.client.ok('DELETE', `/v1/candidates/${interview.candidate_id}`, { key }, 200);
    await channel.next('ended');
    await settleJobs(h, ['interview.erase-files', 'interview.process'], 'erasure and processing');
    expect(filesIn(folder)).toEqual([]);
    h.clock.advance(PARTIAL_KEPT_MS + 60_000);
    await h.services.files.storage.sweep();
    expect(left()).toEqual([]);
    cut(new Error('the worker is gone'));
    await expect(join).rejects.toThrow();
  });
});

describe('upload links handed out before the erasure', () => {
  // Was a bug (a security review): the files were deleted once, at once, while the upload links (300 s) still worked,
  // so a whiteboard image or a piece of the recording put after the erasure stayed for good.
  it('what is put through them after the erasure is deleted once they have expired', async () => {
    const key = org.keys.secret_live;
    const { interview, token, channel } = await kit.started(key);
    const board = await kit.client.ok('POST', `/v1/interviews/${interview.id}/board-upload-url`, { token });
    channel.send({ type: 'recording.chunk_url', index: 0 });
    const piece = await channel.next('recording.chunk_url');
    await kit.client.ok('DELETE', `/v1/candidates/${interview.candidate_id}`, { key }, 200);
    const due = testWorker(h);
    while ((await due.runOnce()) > 0) { /* the erasure's jobs due now, the clock not moved */ }
    expect((await put(board.upload_url, PNG)).statusCode).toBe(200);
    expect((await put(piece.url, Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), Buffer.from('voice of the erased person')]))).statusCode).toBe(200);
    const storage = h.services.files.storage;
    const pieceKey = new URL(piece.url).pathname.replace(/^\/files\//, '');
    expect(await storage.head(board.key)).not.toBeNull();
    h.clock.advance(6 * 60_000); // the links have expired
    await settleJobs(h, ['interview.erase-files'], 'the second deletion');
    expect(await storage.head(board.key)).toBeNull();
    expect(await storage.head(decodeURIComponent(pieceKey))).toBeNull();
  });
});

describe('erasing the candidate while their interview is processed', () => {
  it('stores nothing of what the processing had read of them', async () => {
    const key = org.keys.secret_test;
    const { interview, token, channel } = await kit.started(key);
    const said = 'My national insurance number is QQ123456C and I led the billing migration.';
    await channel.answer(said);
    await kit.client.ok('POST', `/v1/interviews/${interview.id}/board-upload-url`, { token });
    await kit.client.ok('POST', `/v1/interviews/${interview.id}/end`, { token }, 200);
    await channel.close();
    // The customer erases the candidate while processing reads storage (the whiteboard image), after it read the turns.
    const storage = h.services.files.storage;
    const head = storage.head.bind(storage);
    let erased = false;
    storage.head = async (k: string) => {
      if (!erased && k.includes('/board/')) {
        erased = true;
        await kit.client.ok('DELETE', `/v1/candidates/${interview.candidate_id}`, { key }, 200);
      }
      return head(k);
    };
    try {
      await settleJobs(h, ['interview.process', 'interview.erase-files'], 'processing and erasure');
    } finally {
      storage.head = head;
    }
    expect(erased).toBe(true);
    const stored = await h.db.kysely.selectFrom('interview_reports').select(['transcript', 'report']).where('interview_id', '=', interview.id).execute();
    expect(JSON.stringify(stored)).not.toContain('QQ123456C');
    const after = await kit.client.ok('GET', `/v1/interviews/${interview.id}`, { key }, 200);
    expect(after).toMatchObject({ candidate_id: null, status: 'failed' });
    const transcript = await kit.call('GET', `/v1/interviews/${interview.id}/transcript`, { key });
    expect(transcript.raw).not.toContain('QQ123456C');
  });
});

describe('erasing the candidate of an interview not yet joined', () => {
  it('cancels it: the token they hold can no longer join it', async () => {
    const key = org.keys.secret_test;
    const interview = await kit.create(key);
    const token = await kit.token(key, interview.id);
    await kit.client.ok('DELETE', `/v1/candidates/${interview.candidate_id}`, { key }, 200);
    const join = await kit.call('POST', `/v1/interviews/${interview.id}/join`, { token });
    expect(join.body.error).toMatchObject({ code: 'invalid_session_token' }); // revoked with the person
    const after = await kit.client.ok('GET', `/v1/interviews/${interview.id}`, { key }, 200);
    expect(after).toMatchObject({ candidate_id: null, status: 'cancelled' });
    const events = await h.db.kysely.selectFrom('events').select('type').where('payload', 'like', `%${interview.id}%`).execute();
    expect(events.map((e) => e.type)).toContain('interview.cancelled');
  });
});

describe('an erasure whose files storage will not delete', () => {
  // Was a gap: given up after a week of tries, the job failed with storage's bare error: nothing said which of the
  // erased person's files were kept. Its error names what is left (the worker logs it at error level on giving up).
  it('fails naming the files and folders left, from the first one storage refused', async () => {
    const { jobHandlers } = await import('../../src/modules/jobs.js');
    const { UnfinishedWork } = await import('../../src/jobs/worker.js');
    const handler = jobHandlers(h.services, h.modules).find((j) => j.kind === 'interview.erase-files')!;
    const storage = h.services.files.storage;
    const realDeletePrefix = storage.deletePrefix;
    storage.deletePrefix = async () => Promise.reject(new Error('storage unavailable'));
    try {
      const interview = { organization_id: org.id, id: 'itv_gone' };
      const failed = await handler.run({ keys: [`interviews/${org.id}/itv_gone/board/a.png`], recordings: [], folders: [interview, { ...interview, id: 'itv_too' }] }, { attempts: 32, max_attempts: 32 } as never).catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(UnfinishedWork);
      expect((failed as InstanceType<typeof UnfinishedWork>).left).toEqual([`interviews/${org.id}/itv_gone/*`, `interviews/${org.id}/itv_too/*`]);
      expect((failed as Error).message).toBe(`storage unavailable; left undone (2): interviews/${org.id}/itv_gone/*, interviews/${org.id}/itv_too/*`);
    } finally {
      storage.deletePrefix = realDeletePrefix;
    }
  });
});
