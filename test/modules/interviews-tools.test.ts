import { SMTPServer } from 'smtp-server';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Harness, Org } from '../helpers/harness.js';
import { interviewSuite, putSigned, tinyPng, type InterviewKit } from '../helpers/interviews.js';
import { joinAll } from '../helpers/recordings.js';
import { settleJobs, testWorker } from '../helpers/settle.js';
import { invitationJobs } from '../../src/modules/interviews/invitations.js';
import { interviewJobs } from '../../src/modules/interviews/processing.js';
import { recordingChunkKey } from '../../src/modules/interviews/service.js';
import type { ObjectStorage } from '../../src/storage/storage.js';
import { joinMp4Streams } from '../../src/storage/mp4-join.js';
import { joinWebmStreams } from '../../src/storage/webm-join.js';

let h: Harness;
let kit: InterviewKit;
let smtp: SMTPServer;
const mails: Array<{ to: string[]; raw: string }> = [];
/** Run as a mail arrives, before the server accepts it (the sender is still waiting). */
let onMail: (() => Promise<unknown>) | null = null;
/** While set, the server refuses every recipient (naming the address, as mail servers do). */
let refuseRecipients = false;
/** An organisation with credits for every interview the file joins. */
let org: Org;
const key = () => org.keys.secret_test;
const live = () => org.keys.secret_live;

/** The smallest valid PNG header: signature and a 1×1 IHDR, then a little more. */
const PNG = tinyPng();

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true, disabledCommands: ['STARTTLS', 'AUTH'], logger: false,
    onRcptTo(address, _session, callback) {
      if (!refuseRecipients) return callback();
      callback(Object.assign(new Error(`Mailbox <${address.address}> unavailable`), { responseCode: 550 }));
    },
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (d) => (raw += d));
      stream.on('end', async () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
        const during = onMail;
        onMail = null;
        await during?.();
        callback();
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
  const port = (smtp.server.address() as AddressInfo).port;
  ({ h, kit, org } = await interviewSuite({ PREP_SMTP_URL: `smtp://127.0.0.1:${port}`, PREP_SMTP_FROM: 'Acme Hiring <hiring@acme.test>' }));
});
afterAll(async () => {
  await h.close();
  await new Promise<void>((r) => smtp.close(() => r()));
});

const put = (url: string, body: Buffer, type?: string) => putSigned(h, url, body, type);

describe('code during the interview', () => {
  it('keeps a snapshot in the transcript, runs it in the sandbox under limits, and the interviewer reacts', async () => {
    const { interview, token, channel } = await kit.started(key(), { round_type: 'live-coding' });
    const ok = await kit.client.ok('POST', `/v1/interviews/${interview.id}/code`, { token, body: { language: 'python', source: 'import sys\nprint(sys.stdin.read().upper())', run: true, stdin: 'abc' } });
    expect(ok.run).toMatchObject({ status: 'ok', exit_code: 0, stdout: 'ABC\n' });
    const loop = await kit.client.ok('POST', `/v1/interviews/${interview.id}/code`, { token, body: { language: 'python', source: 'while True: pass', run: true } });
    expect(loop.run.status).toBe('time_limit');
    const broken = await kit.client.ok('POST', `/v1/interviews/${interview.id}/code`, { token, body: { language: 'c', source: 'int main( {', run: true } });
    expect(broken.run.status).toBe('compile_error');
    const saved = await kit.client.ok('POST', `/v1/interviews/${interview.id}/code`, { token, body: { language: 'python', source: 'x = 1' } });
    expect(saved.run).toBeNull();
    const codeTurns = await channel.until(() => channel.turns.filter((t) => t.kind === 'code').length === 4 && channel.turns.filter((t) => t.kind === 'code'), 'four code turns');
    expect(codeTurns.map((t) => t.seq)).toEqual([ok.turn, loop.turn, broken.turn, saved.turn]);
    await channel.until(() => channel.turns.find((t) => t.speaker === 'interviewer' && t.seq > ok.turn), 'a reaction to the code');
    const unknown = await kit.call('POST', `/v1/interviews/${interview.id}/code`, { token, body: { language: 'cobol', source: 'x', run: true } });
    expect(unknown.body.error).toMatchObject({ code: 'parameter_invalid', param: 'language' });
    const huge = await kit.call('POST', `/v1/interviews/${interview.id}/code`, { token, body: { language: 'python', source: 'x'.repeat(64 * 1024 + 1) } });
    expect(huge.status).toBe(400);
    await channel.close();
  });
});

describe('review: a run asked for past the cap of code snapshots', () => {
  it('is refused before the sandbox runs it (it used to run, then be refused)', async () => {
    const { interview, token, channel } = await kit.started(key(), { round_type: 'live-coding' });
    await channel.close();
    const now = h.clock.now();
    await h.db.kysely.insertInto('interview_turns').values(Array.from({ length: 200 }, (_, i) => ({
      interview_id: interview.id, seq: 10_000 + i, speaker: 'candidate' as const, kind: 'code' as const, text: 'Shared python code (1 line).',
      question_position: null, client_id: null, data: JSON.stringify({ language: 'python', source: 'x = 1', run: null }), at_ms: 0, created_at: now,
    }))).execute();
    const execute = vi.spyOn(h.services.sandbox, 'execute');
    try {
      const res = await kit.call('POST', `/v1/interviews/${interview.id}/code`, { token, body: { language: 'python', source: 'print(1)', run: true } });
      expect(res.body.error?.code, res.raw).toBe('interview_limit_reached');
      expect(execute).not.toHaveBeenCalled();
    } finally {
      execute.mockRestore();
    }
  });
});

describe('whiteboard snapshots', () => {
  it('presigns a PNG upload that joins the transcript; anything but a PNG is refused', async () => {
    const { interview, token, channel } = await kit.started(key());
    const upload = await kit.client.ok('POST', `/v1/interviews/${interview.id}/board-upload-url`, { token });
    expect(upload).toMatchObject({ object: 'board_upload', content_type: 'image/png', max_bytes: 2 * 1024 * 1024 });
    const notPng = await put(upload.upload_url, Buffer.from('%PDF-1.7 not an image'));
    expect(notPng.statusCode).toBe(415);
    expect((await put(upload.upload_url, PNG, 'image/png')).statusCode).toBe(200);
    const missing = await kit.client.ok('POST', `/v1/interviews/${interview.id}/board-upload-url`, { token }); // never uploaded
    // What S3 would take through its links (it cannot bound a presigned PUT): a file over the cap and one that is no PNG.
    const huge = await kit.client.ok('POST', `/v1/interviews/${interview.id}/board-upload-url`, { token });
    const fake = await kit.client.ok('POST', `/v1/interviews/${interview.id}/board-upload-url`, { token });
    await h.services.files.storage.write(huge.key, Buffer.concat([PNG, Buffer.alloc(2 * 1024 * 1024)]), 'image/png');
    await h.services.files.storage.write(fake.key, Buffer.from('<svg onload="alert(1)"/>'), 'image/png');
    await channel.until(() => channel.turns.find((t) => t.kind === 'board' && t.seq === fake.turn), 'the board turns');
    await channel.answer('I drew the write path: the client, the queue and the two consumers, with the cache beside them.');
    await channel.answer('The write goes to the queue first, so a slow consumer never blocks the request, and retries are idempotent.');
    await kit.client.ok('POST', `/v1/interviews/${interview.id}/end`, { token }, 200);
    await settleJobs(h, ['interview.process'], 'processing');
    const transcript = await kit.client.ok('GET', `/v1/interviews/${interview.id}/transcript`, { key: key() }, 200);
    const boards = transcript.turns.filter((t: any) => t.kind === 'board');
    expect(boards.map((b: any) => [b.seq, b.image.uploaded])).toEqual([[upload.turn, true], [missing.turn, false], [huge.turn, false], [fake.turn, false]]);
    // Never served, so not kept.
    expect(await h.services.files.storage.head(huge.key)).toBeNull();
    expect(await h.services.files.storage.head(fake.key)).toBeNull();
    expect(await h.services.files.storage.head(upload.key)).not.toBeNull();
    const image = await h.app.inject({ method: 'GET', url: new URL(boards[0].image.url).pathname + new URL(boards[0].image.url).search });
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    expect(boards[1].image.url).toBeNull();
  });
});

describe('proctoring signals', () => {
  it('accepts type or event, does not store meta, counts them in the report apart from the score, and caps them', async () => {
    const { interview, token } = await kit.started(key());
    const res = await kit.client.ok('POST', `/v1/interviews/${interview.id}/events`, {
      token, body: { events: [{ type: 'tab_hidden', meta: { at: 1 } }, { event: 'paste' }, { type: 'copy', event: 'copy' }] },
    }, 202);
    expect(res).toEqual({ object: 'proctoring_events', recorded: 3 });
    const stored = await h.db.kysely.selectFrom('proctoring_events').select(['type', 'meta']).where('subject_id', '=', interview.id).execute();
    expect(stored.map((e) => e.type).sort()).toEqual(['copy', 'paste', 'tab_hidden']);
    expect(stored.every((e) => e.meta === null)).toBe(true);
    const neither = await kit.call('POST', `/v1/interviews/${interview.id}/events`, { token, body: { events: [{ meta: {} }] } });
    expect(neither.body.error).toMatchObject({ code: 'parameter_missing', param: 'events[0].type' });
    const clash = await kit.call('POST', `/v1/interviews/${interview.id}/events`, { token, body: { events: [{ type: 'a', event: 'b' }] } });
    expect(clash.status).toBe(400);
    let recorded = 3;
    for (let i = 0; i < 6; i++) {
      recorded += (await kit.client.ok('POST', `/v1/interviews/${interview.id}/events`, { token, body: { events: Array.from({ length: 100 }, () => ({ type: 'blur' })) } }, 202)).recorded;
    }
    expect(recorded).toBe(500);
  });
});

describe('review: the server\'s own pause signal sent by the room', () => {
  it('is refused, so the cap of 500 holds (it was uncounted: sent without end) and pauses are only the server\'s', async () => {
    const { interview, token, channel } = await kit.started(key());
    await channel.close();
    const forged = await kit.call('POST', `/v1/interviews/${interview.id}/events`, {
      token, body: { events: [{ type: 'tab_hidden' }, { event: 'interview_paused' }] },
    });
    expect(forged.status, forged.raw).toBe(400);
    expect(forged.body.error).toMatchObject({ code: 'parameter_invalid', param: 'events[1].event' });
    const stored = await h.db.kysely.selectFrom('proctoring_events').select('type').where('subject_id', '=', interview.id).execute();
    expect(stored).toEqual([]);
  });
});

/** Answers that make an interview scorable. */
const ANSWERS = ['At my last job I owned the billing migration and planned it with finance.', 'I moved the data in batches and I checked totals after each batch.', 'As a result we switched over with no lost invoices and a week early.'];

/** A live interview whose room uploaded `pieces` (numbered from 0), ended: its processing job queued, not run. */
async function endedWithPieces(pieces: Buffer[]): Promise<string> {
  const { interview, token, channel } = await kit.started(live());
  for (const [index, piece] of pieces.entries()) {
    const at = channel.messages.length;
    channel.send({ type: 'recording.chunk_url', index });
    expect((await put((await channel.next('recording.chunk_url', at)).url, piece)).statusCode).toBe(200);
  }
  for (const text of ANSWERS) await channel.answer(text);
  await kit.client.ok('POST', `/v1/interviews/${interview.id}/end`, { token }, 200);
  await channel.close();
  return interview.id as string;
}

/** The recording as `recording-url` serves it, and the content type it names. */
async function served(interviewId: string): Promise<{ bytes: Buffer; contentType: string }> {
  const link = await kit.client.ok('GET', `/v1/interviews/${interviewId}/recording-url`, { key: live() }, 200);
  const bytes = (await h.app.inject({ method: 'GET', url: new URL(link.url).pathname + new URL(link.url).search })).rawPayload;
  return { bytes, contentType: link.content_type };
}

describe('recording (live mode only)', () => {
  it('joins the pieces the room uploaded into one recording behind a signed link; test mode never records', async () => {
    const { interview, token, channel } = await kit.started(live());
    channel.send({ type: 'recording.chunk_url', index: 0 });
    const first = await channel.next('recording.chunk_url');
    const webmStart = Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), Buffer.from('first piece ')]);
    expect((await put(first.url, webmStart)).statusCode).toBe(200);
    const at = channel.messages.length;
    channel.send({ type: 'recording.chunk_url', index: 1 });
    const second = await channel.next('recording.chunk_url', at);
    expect((await put(second.url, Buffer.from('second piece'))).statusCode).toBe(200);
    const gapAt = channel.messages.length;
    channel.send({ type: 'recording.chunk_url', index: 5 }); // past a gap: not joined, but not left behind either
    expect((await put((await channel.next('recording.chunk_url', gapAt)).url, Buffer.from('stray piece'))).statusCode).toBe(200);
    expect(await h.services.files.storage.head(recordingChunkKey({ organization_id: org.id, id: interview.id }, 5))).not.toBeNull();
    for (const text of ANSWERS) await channel.answer(text);
    await kit.client.ok('POST', `/v1/interviews/${interview.id}/end`, { token }, 200);
    await settleJobs(h, ['interview.process'], 'processing');
    const link = await kit.client.ok('GET', `/v1/interviews/${interview.id}/recording-url`, { key: live() }, 200);
    expect(link).toMatchObject({ object: 'interview_recording', content_type: 'audio/webm', expires_in: 600 });
    const file = await h.app.inject({ method: 'GET', url: new URL(link.url).pathname + new URL(link.url).search });
    expect(file.rawPayload.equals(Buffer.concat([webmStart, Buffer.from('second piece')]))).toBe(true);
    for (const index of [0, 1, 5]) expect(await h.services.files.storage.head(recordingChunkKey({ organization_id: org.id, id: interview.id }, index))).toBeNull();

    // Safari records MP4: the joined recording is stored and served as what it is, not as WebM.
    const safari = await kit.started(live());
    safari.channel.send({ type: 'recording.chunk_url', index: 0 });
    const mp4Start = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42 moov…')]);
    expect((await put((await safari.channel.next('recording.chunk_url')).url, mp4Start)).statusCode).toBe(200);
    for (const text of ANSWERS) await safari.channel.answer(text);
    await kit.client.ok('POST', `/v1/interviews/${safari.interview.id}/end`, { token: safari.token }, 200);
    await settleJobs(h, ['interview.process'], 'processing');
    const mp4 = await kit.client.ok('GET', `/v1/interviews/${safari.interview.id}/recording-url`, { key: live() }, 200);
    expect(mp4.content_type).toBe('audio/mp4');
    const served = await h.app.inject({ method: 'GET', url: new URL(mp4.url).pathname + new URL(mp4.url).search });
    expect(served.headers['content-type']).toBe('audio/mp4');
    expect(served.headers['content-disposition']).toContain(`interview-${safari.interview.id}.m4a`);
    expect(served.rawPayload.equals(mp4Start)).toBe(true);

    const test = await kit.started(key());
    test.channel.send({ type: 'recording.chunk_url', index: 0 });
    expect((await test.channel.next('error')).code).toBe('recording_not_ready');
    await test.channel.close();
  });
});

describe('joining a recording when a run of the job is slow or storage fails', () => {
  const PIECES = [Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), Buffer.from('first piece ')]), Buffer.from('second piece '), Buffer.from('third piece')];

  /** The processing job's handler, over the storage (and repository) given; `last`: the last run the queue allows. */
  const handlerOver = (storage: ObjectStorage, repo = h.modules.interviewRepo, kind = 'interview.process') => interviewJobs({
    db: h.db.kysely, clock: h.clock, queue: h.services.queue, repo, ending: h.modules.interviews.ending, storage, model: null,
    emit: h.modules.webhooks.emitEvent, changed: () => {}, sandbox: h.services.sandbox, judgeBudgetMs: 10_000,
  }).find((j) => j.kind === kind)!;
  const processingOver = (storage: ObjectStorage, options: { last?: boolean; repo?: typeof h.modules.interviewRepo } = {}) => {
    const handler = handlerOver(storage, options.repo);
    return (interviewId: string) => handler.run({ interview_id: interviewId }, (options.last ? { attempts: 8, max_attempts: 8 } : { attempts: 1, max_attempts: 8 }) as never);
  };
  const failingPiece = (storage: ObjectStorage, id: string): ObjectStorage => ({
    ...storage,
    read: async (key, max) => {
      if (key === recordingChunkKey({ organization_id: org.id, id }, 2)) throw new Error('storage unavailable');
      return storage.read(key, max);
    },
  });
  const interviewRow = (id: string) => h.db.kysely.selectFrom('interviews').select(['status', 'recording_key', 'failure_reason', 'overall_score']).where('id', '=', id).executeTakeFirstOrThrow();
  const eventsOf = async (id: string) => (await h.db.kysely.selectFrom('events').select(['type', 'payload']).where('organization_id', '=', org.id).orderBy('id').execute())
    .filter((e) => (JSON.parse(e.payload) as { data: { object: { id?: string; interview_id?: string } } }).data.object.id === id
      || (JSON.parse(e.payload) as { data: { object: { interview_id?: string } } }).data.object.interview_id === id);

  it('a run that finds the pieces deleted under it by a run that joined them keeps the whole recording, not its shorter one', async () => {
    const id = await endedWithPieces(PIECES);
    const storage = h.services.files.storage;
    const fast = processingOver(storage);
    let overtaken = false;
    // The slow run's lease ran out after it read the first piece; a second run joins everything and deletes the pieces.
    const slow = processingOver({
      ...storage,
      read: async (key, max) => {
        if (key === recordingChunkKey({ organization_id: org.id, id }, 1) && !overtaken) {
          overtaken = true;
          await fast(id);
        }
        return storage.read(key, max);
      },
    });
    await slow(id);
    expect(overtaken).toBe(true);
    expect((await served(id)).bytes.equals(Buffer.concat(PIECES))).toBe(true);
    const row = await h.db.kysely.selectFrom('interviews').select(['status', 'recording_key']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.status).toBe('completed');
  });

  it('a piece that cannot be read fails the run and keeps every piece; the next run joins the whole recording', async () => {
    const id = await endedWithPieces(PIECES);
    const storage = h.services.files.storage;
    const flaky = processingOver({
      ...storage,
      read: async (key, max) => {
        if (key === recordingChunkKey({ organization_id: org.id, id }, 2)) throw new Error('storage unavailable');
        return storage.read(key, max);
      },
    });
    await expect(flaky(id)).rejects.toThrow('storage unavailable');
    for (const index of [0, 1, 2]) expect(await storage.head(recordingChunkKey({ organization_id: org.id, id }, index))).not.toBeNull();
    expect((await h.db.kysely.selectFrom('interviews').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status).toBe('ended');
    await processingOver(storage)(id);
    expect((await served(id)).bytes.equals(Buffer.concat(PIECES))).toBe(true);
    for (const index of [0, 1, 2]) expect(await storage.head(recordingChunkKey({ organization_id: org.id, id }, index))).toBeNull();
  });

  it('a piece that cannot be read on the last run the queue allows: the interview completes without the recording, its pieces kept', async () => {
    const id = await endedWithPieces(PIECES);
    const storage = h.services.files.storage;
    await processingOver(failingPiece(storage, id), { last: true })(id);
    expect(await interviewRow(id)).toMatchObject({ status: 'completed', recording_key: null, failure_reason: null });
    expect((await kit.client.call('GET', `/v1/interviews/${id}/recording-url`, { key: live() })).body.error.code).toBe('recording_not_ready');
    await kit.client.ok('GET', `/v1/interviews/${id}/report`, { key: live() }, 200);
    for (const index of [0, 1, 2]) expect(await storage.head(recordingChunkKey({ organization_id: org.id, id }, index))).not.toBeNull();
    expect((await eventsOf(id)).map((e) => e.type).filter((t) => t !== 'interview.created' && t !== 'interview.started'))
      .toEqual(['interview.ended', 'interview.completed', 'interview.transcript_available', 'interview.summary_available']);
    // Was a gap: the recording was given up for good. It is joined once storage answers again.
    const later = handlerOver(failingPiece(storage, id), undefined, 'interview.recording');
    await expect(later.run({ interview_id: id }, {} as never)).rejects.toThrow('storage unavailable'); // still failing: tried again later
    const queued = await h.db.kysely.selectFrom('background_jobs').select(['payload', 'max_attempts']).where('kind', '=', 'interview.recording').execute();
    expect(queued.filter((j) => JSON.parse(j.payload).interview_id === id).map((j) => j.max_attempts)).toEqual([32]);
    await settleJobs(h, ['interview.recording'], 'the recording, storage back');
    expect((await served(id)).bytes.equals(Buffer.concat(PIECES))).toBe(true);
    expect(await interviewRow(id)).toMatchObject({ status: 'completed', failure_reason: null });
    for (const index of [0, 1, 2]) expect(await storage.head(recordingChunkKey({ organization_id: org.id, id }, index))).toBeNull();
  });

  it('processing that fails on its last run fails the interview with processing_error, said once, rather than leave it ended', async () => {
    const id = await endedWithPieces(PIECES);
    const broken = { ...h.modules.interviewRepo, turns: async () => { throw new Error('turns unreadable'); } };
    await expect(processingOver(h.services.files.storage, { repo: broken })(id)).rejects.toThrow('turns unreadable');
    expect((await interviewRow(id)).status).toBe('ended'); // not the last run: retried later
    await expect(processingOver(h.services.files.storage, { repo: broken, last: true })(id)).rejects.toThrow('turns unreadable');
    expect(await interviewRow(id)).toMatchObject({ status: 'failed', failure_reason: 'processing_error', overall_score: null });
    const completed = (await eventsOf(id)).filter((e) => e.type.startsWith('interview.') && !['interview.created', 'interview.started', 'interview.ended'].includes(e.type));
    expect(completed.map((e) => [e.type, JSON.parse(e.payload).data.object])).toEqual([
      ['interview.completed', { id, status: 30, overall_score: 0 }], // as the room closed
      ['interview.summary_available', { object: 'interview_report', interview_id: id, status: 'failed', overall_score: null, recommendation: null, failure_reason: 'processing_error' }],
    ]);
    const transcript = await kit.client.call('GET', `/v1/interviews/${id}/transcript`, { key: live() });
    expect(transcript.body.error).toMatchObject({ code: 'transcript_not_ready', message: expect.stringContaining('processing_error') });
    const report = await kit.client.call('GET', `/v1/interviews/${id}/report`, { key: live() });
    expect(report.body.error).toMatchObject({ code: 'report_not_ready', message: expect.stringContaining('processing_error') });
    // A later run (the job's copy, say) changes nothing.
    await processingOver(h.services.files.storage, { last: true })(id);
    expect((await interviewRow(id)).status).toBe('failed');
  });

  it('a processing job whose worker died on every run is run once more without the recording, then given up', async () => {
    const storage = h.services.files.storage;
    const id = await endedWithPieces(PIECES);
    const handler = handlerOver(storage);
    await handler.abandoned!({ interview_id: id }, {} as never);
    const queued = await h.db.kysely.selectFrom('background_jobs').select(['payload', 'max_attempts']).where('kind', '=', 'interview.process').where('status', '=', 'queued').execute();
    const minimal = queued.find((j) => JSON.parse(j.payload).interview_id === id && JSON.parse(j.payload).minimal === true);
    expect(minimal?.max_attempts).toBe(1);
    // The run without the recording never reads a piece.
    const untouchable: ObjectStorage = { ...storage, read: async (key, max) => (key.includes(id) && !key.endsWith('.png') ? Promise.reject(new Error(`read ${key}`)) : storage.read(key, max)) };
    await handlerOver(untouchable).run(JSON.parse(minimal!.payload), { attempts: 1, max_attempts: 1 } as never);
    expect(await interviewRow(id)).toMatchObject({ status: 'completed', recording_key: null });

    const other = await endedWithPieces(PIECES);
    await handler.abandoned!({ interview_id: other, minimal: true }, {} as never);
    expect(await interviewRow(other)).toMatchObject({ status: 'failed', failure_reason: 'processing_error' });
  });

  // Was a bug: the run without the recording skipped the check for one an earlier run had joined (its pieces then
  // deleted), so the recording was lost though it sat in storage.
  it('the run without the recording keeps one an earlier run joined before its worker died', async () => {
    const storage = h.services.files.storage;
    const id = await endedWithPieces(PIECES);
    // The first run joins the recording, deletes the pieces, then dies before storing the result.
    const dying = { ...h.modules.interviewRepo, locked: async () => { throw new Error('worker died'); } };
    await expect(processingOver(storage, { repo: dying })(id)).rejects.toThrow('worker died');
    expect(await storage.head(recordingChunkKey({ organization_id: org.id, id }, 0))).toBeNull();
    await handlerOver(storage).run({ interview_id: id, minimal: true }, { attempts: 1, max_attempts: 1 } as never);
    expect(await interviewRow(id)).toMatchObject({ status: 'completed' });
    expect((await served(id)).bytes.equals(Buffer.concat(PIECES))).toBe(true);
  });
});

describe('recording across a reload of the room', () => {
  it.each([
    { container: 'WebM', file: 'webm', contentType: 'audio/webm', join: joinWebmStreams, header: Buffer.from([0x1a, 0x45, 0xdf, 0xa3]) },
    { container: 'MP4 (Safari\'s container)', file: 'mp4', contentType: 'audio/mp4', join: joinMp4Streams, header: Buffer.from('moov') },
  ])('joins the second $container recorder\'s stream onto the first, one header and one timeline, as stored and served', async ({ file, contentType, join, header }) => {
    const a = readFileSync(new URL(`../fixtures/recordings/chromium-a.${file}`, import.meta.url));
    const b = readFileSync(new URL(`../fixtures/recordings/chromium-b.${file}`, import.meta.url));
    // Pieces 0 and 1 from the first tab's recorder, 2 and 3 from the reloaded tab's (which carried on the numbering).
    const pieces = [a.subarray(0, 20_000), a.subarray(20_000), b.subarray(0, 15_000), b.subarray(15_000)];
    const id = await endedWithPieces(pieces);
    await settleJobs(h, ['interview.process'], 'processing');
    const stored = await served(id);
    expect(stored.contentType).toBe(contentType);
    expect(stored.bytes.equals(await joinAll(join, pieces))).toBe(true);
    expect(stored.bytes.subarray(0, a.length).equals(a)).toBe(true); // the first recording as it was
    expect(stored.bytes.indexOf(header, a.length)).toBe(-1); // one header: the second recorder's was dropped
  });
});

describe('invitations', () => {
  it('are sent by SMTP in live mode with a launch link, and only described in test mode', async () => {
    const candidate = await kit.client.candidate(live(), { email: 'grace@example.com', name: 'Grace Hopper' });
    const interview = await kit.create(live(), { send_invitation: true }, candidate);
    expect(interview.invitation).toMatchObject({ status: 'queued', to: 'grace@example.com', reason: null });
    await settleJobs(h, ['interview.invite'], 'the invitation');
    const mail = mails.find((m) => m.to.includes('grace@example.com'))!;
    expect(mail.raw).toContain('Acme Hiring');
    const link = /http:\/\/localhost:8080\/launch#token=[0-9A-Za-z]+/.exec(mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='));
    expect(link).not.toBeNull();
    const after = await kit.client.ok('GET', `/v1/interviews/${interview.id}`, { key: live() }, 200);
    expect(after.invitation.status).toBe('sent');
    // Unix seconds, as every time the API gives (it was milliseconds).
    expect(after.invitation.sent_at).toBeGreaterThanOrEqual(interview.created_at);
    expect(after.invitation.sent_at).toBeLessThanOrEqual(Math.ceil(h.clock.now() / 1000));
    const exchanged = await kit.call('POST', '/v1/launch/exchange', { body: { token: link![0].split('token=')[1] }, origin: 'http://localhost:8080' });
    expect(exchanged.status, exchanged.raw).toBe(201);

    const before = mails.length;
    const testCandidate = await kit.client.candidate(key(), { email: 'alan@example.com', name: 'Alan Turing' });
    const described = await kit.create(key(), { send_invitation: true }, testCandidate);
    expect(described.invitation).toMatchObject({ status: 'not_sent', reason: 'test_mode', to: 'alan@example.com' });
    expect(described.invitation.text).toContain('{launch_link}');
    await settleJobs(h, ['interview.invite'], 'nothing');
    expect(mails.length).toBe(before);
  });

  it('are not written back onto the interview when the candidate is erased while the mail is sent', async () => {
    const candidate = await kit.client.candidate(live(), { email: 'erase-me@example.com', name: 'Erase Me' });
    const interview = await kit.create(live(), { send_invitation: true }, candidate);
    onMail = () => kit.client.ok('DELETE', `/v1/candidates/${candidate}`, { key: live() }, 200);
    await settleJobs(h, ['interview.invite'], 'the invitation');
    expect(mails.some((m) => m.to.includes('erase-me@example.com'))).toBe(true);
    const after = await kit.client.ok('GET', `/v1/interviews/${interview.id}`, { key: live() }, 200);
    expect(after).toMatchObject({ candidate_id: null, invitation: null, status: 'cancelled' });
  });

  // Was a bug (a privacy review): the send's error, naming the address, stayed on the job after the erasure.
  it('leave no error naming the address of an erased candidate on the job', async () => {
    const candidate = await kit.client.candidate(live(), { email: 'refused-erased@example.com', name: 'Refused Erased' });
    await kit.create(live(), { send_invitation: true }, candidate);
    const naming = () => h.db.kysely.selectFrom('background_jobs').select('id').where('last_error', 'like', '%refused-erased@example.com%').execute();
    refuseRecipients = true;
    try {
      await testWorker(h, undefined, ['interview.invite']).runOnce();
    } finally {
      refuseRecipients = false;
    }
    expect((await naming()).length).toBe(1);
    await kit.client.ok('DELETE', `/v1/candidates/${candidate}`, { key: live() }, 200);
    expect(await naming()).toEqual([]);
    await settleJobs(h, ['interview.invite'], 'the invitation');
  });

  it('read failed, not queued for ever, when the job\'s worker died on every try', async () => {
    const candidate = await kit.client.candidate(live(), { email: 'crash@example.com', name: 'Crash Test' });
    const interview = await kit.create(live(), { send_invitation: true }, candidate);
    const handler = invitationJobs({ db: h.db.kysely, clock: h.clock, repo: h.modules.interviewRepo, candidateAccess: h.modules.candidateAccess, smtp: null })[0]!;
    await handler.abandoned!({ interview_id: interview.id }, {} as never);
    const after = await kit.client.ok('GET', `/v1/interviews/${interview.id}`, { key: live() }, 200);
    expect(after.invitation).toMatchObject({ status: 'failed', error: expect.stringContaining('every try'), to: 'crash@example.com' });
    const before = mails.length;
    await settleJobs(h, ['interview.invite'], 'the queued copy');
    expect(mails.length).toBe(before); // nothing is sent after it was given up
  });

  // Was a bug: only a failed send was recorded on the last try; any other error left the invitation queued for ever.
  it('read failed, not queued for ever, when the last try fails outside the send; sent when it failed after it', async () => {
    const handlerWith = (overrides: { candidateAccess?: unknown; repo?: unknown }) => invitationJobs({
      db: h.db.kysely, clock: h.clock, repo: (overrides.repo ?? h.modules.interviewRepo) as never,
      candidateAccess: (overrides.candidateAccess ?? h.modules.candidateAccess) as never, smtp: h.config.smtp,
    })[0]!;
    const last = { attempts: 5, max_attempts: 5 } as never;

    const before = await kit.create(live(), { send_invitation: true }, await kit.client.candidate(live(), { email: 'db-before@example.com', name: 'Db Before' }));
    const failing = handlerWith({ candidateAccess: { createLaunchLink: () => Promise.reject(new Error('database unavailable')) } });
    await expect(failing.run({ interview_id: before.id }, last)).rejects.toThrow('database unavailable');
    expect((await kit.client.ok('GET', `/v1/interviews/${before.id}`, { key: live() }, 200)).invitation)
      .toMatchObject({ status: 'failed', error: expect.stringContaining('last try'), sent_at: null });

    const after = await kit.create(live(), { send_invitation: true }, await kit.client.candidate(live(), { email: 'db-after@example.com', name: 'Db After' }));
    let refused = false;
    const repo = { ...h.modules.interviewRepo, recordInvitation: (...args: Parameters<typeof h.modules.interviewRepo.recordInvitation>) => {
      if (!refused) {
        refused = true;
        return Promise.reject(new Error('database unavailable'));
      }
      return h.modules.interviewRepo.recordInvitation(...args);
    } };
    await expect(handlerWith({ repo }).run({ interview_id: after.id }, last)).rejects.toThrow('database unavailable');
    expect(mails.some((m) => m.to.includes('db-after@example.com'))).toBe(true);
    expect((await kit.client.ok('GET', `/v1/interviews/${after.id}`, { key: live() }, 200)).invitation).toMatchObject({ status: 'sent' });

    const sentBefore = mails.length;
    await settleJobs(h, ['interview.invite'], 'the queued copies');
    expect(mails.length).toBe(sentBefore); // neither is sent again
  });
});

describe('code outcomes in the report', () => {
  /** A live-coding interview in which the candidate shares `source` (and runs it) for the problem in the editor, then ends it. */
  async function codingInterview(source: (slug: string) => Promise<string>) {
    const { interview, token, channel } = await kit.started(key(), { round_type: 'live-coding' });
    const planned = await h.db.kysely.selectFrom('interview_questions').select(['position', 'problem']).where('interview_id', '=', interview.id)
      .where('problem', 'is not', null).orderBy('position').executeTakeFirstOrThrow();
    const slug = JSON.parse(planned.problem!).slug as string;
    const state = JSON.parse((await h.db.kysely.selectFrom('interviews').select('interviewer').where('id', '=', interview.id).executeTakeFirstOrThrow()).interviewer);
    expect(state.index).toBe(planned.position); // the problem is the question in hand
    const shared = await kit.client.ok('POST', `/v1/interviews/${interview.id}/code`, { token, body: { language: 'python', source: await source(slug), run: true, stdin: '' } });
    await channel.until(() => channel.turns.find((t) => t.seq === shared.turn), 'the code turn');
    for (const said of [
      'My approach is to read the whole input first, build the structure once, and then answer in a single pass over it, keeping a running result.',
      'The time complexity is linear in the size of the input and the extra space is linear too, for the structure I build at the start.',
      'I would test the smallest input, the largest one the constraints allow, repeated values, and an example where every value is the same.',
      'If the input were much larger I would stream it instead of holding it in memory, and only keep the counts the answer needs.',
    ]) await channel.answer(said);
    await kit.client.ok('POST', `/v1/interviews/${interview.id}/end`, { token }, 200);
    await settleJobs(h, ['interview.process'], 'processing');
    const report = await kit.client.ok('GET', `/v1/interviews/${interview.id}/report`, { key: key() }, 200);
    expect(report).toMatchObject({ scored: true });
    return { report, slug, shared, correctness: report.competencies.find((c: any) => c.measure === 'code_correctness') };
  }

  it('judges the final code on the problem\'s own tests: a program that merely runs is not rated correct, a solution is', async () => {
    const printing = await codingInterview(async () => 'print(42)');
    expect(printing.shared.run).toMatchObject({ status: 'ok', exit_code: 0 }); // it ran fine: that alone used to rate it 5
    expect(printing.report.code.tests).toEqual([{
      question_position: expect.any(Number), problem: printing.slug, turn: printing.shared.turn, language: 'python', passed: 0, total: expect.any(Number), verdict: 'WRONG_ANSWER', note: null,
    }]);
    expect(printing.report.code.tests[0].total).toBeGreaterThan(3);
    expect(printing.correctness.rating).toBe(1);
    expect(printing.correctness.rationale).toMatch(/0 of \d+ tests passed/);

    const solving = await codingInterview(async (slug) => {
      const row = await h.db.kysely.selectFrom('coding_problems').select('reference_solutions').where('slug', '=', slug).executeTakeFirstOrThrow();
      return JSON.parse(row.reference_solutions!).python as string;
    });
    const [judged] = solving.report.code.tests;
    expect(judged).toMatchObject({ problem: solving.slug, verdict: 'ACCEPTED', note: null });
    expect(judged.passed).toBe(judged.total);
    expect(solving.correctness.rating).toBe(5);
    // Hidden cases are never shown: only the counts and the verdict.
    expect(JSON.stringify(solving.report)).not.toContain('hidden-');
  });
});
