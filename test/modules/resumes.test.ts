import { PassThrough } from 'node:stream';
import { createUploadBudget } from '../../src/storage/upload-budget.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type Org } from '../helpers/harness.js';
import { testClient, type TestClient } from '../helpers/client.js';
import { startS3Server, type S3Server } from '../helpers/s3.js';
import { quotaPeriod } from '../../src/platform/credits.js';
import { startFakeModel } from '../helpers/fake-model.js';
import { settleJobs, testWorker } from '../helpers/settle.js';
import { createWorker } from '../../src/jobs/worker.js';
import { jobHandlers } from '../../src/modules/jobs.js';
import { TEXT_RESUME } from '../helpers/sample-resume.js';

describe.each(['local', 's3'] as const)('resumes on %s storage', (backend) => {
let h: Harness;
let kit: TestClient;
let org: Org;
let s3: S3Server | null = null;
const key = () => org.keys.secret_test;

/** The path and query of a signed URL, for app.inject. */
const local = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};

/** A signed URL's answer: the service's own for local storage, the S3 server's otherwise. */
async function send(method: 'PUT' | 'GET', url: string, body?: Buffer | string): Promise<{ statusCode: number; body: string; headers: Record<string, unknown> }> {
  if (backend === 'local') {
    const res = await h.app.inject({ method, url: local(url), ...(body === undefined ? {} : { payload: body, headers: { 'content-type': 'application/octet-stream' } }) });
    return { statusCode: res.statusCode, body: res.body, headers: res.headers };
  }
  const res = await fetch(url, { method, ...(body === undefined ? {} : { body }) });
  return { statusCode: res.status, body: await res.text(), headers: Object.fromEntries(res.headers) };
}

async function upload(k: string, candidateId: string, bytes: Buffer | string) {
  const created = await kit.ok('POST', '/v1/resumes/upload-url', { key: k, body: { candidate_id: candidateId, filename: 'cv.txt' } });
  const put = await send('PUT', created.upload_url, bytes);
  return { created, put };
}

async function registered(k = key(), bytes: Buffer | string = TEXT_RESUME) {
  const candidateId = await kit.candidate(k);
  const { created, put } = await upload(k, candidateId, bytes);
  expect(put.statusCode, put.body).toBe(200);
  const resume = await kit.ok('POST', '/v1/resumes', { key: k, body: { candidate_id: candidateId, key: created.key } });
  return { candidateId, key: created.key as string, resume };
}

async function drainJobs() {
  const worker = testWorker(h);
  while ((await worker.runOnce()) > 0) { /* drain */ }
}

beforeAll(async () => {
  if (backend === 's3') s3 = await startS3Server();
  h = await startHarness({ env: s3?.env ?? {} });
  kit = testClient(h);
  org = h.org;
});
afterAll(async () => {
  await h?.close();
  await s3?.close();
});

describe('upload URLs', () => {
  it('answer 201 with a signed PUT URL, a key and its lifetime', async () => {
    const candidateId = await kit.candidate(key());
    const body = await kit.ok('POST', '/v1/resumes/upload-url', { key: key(), body: { candidate_id: candidateId, filename: 'Résumé final.pdf' } });
    expect(body).toMatchObject({ object: 'resume_upload', expires_in: 900 });
    expect(body.upload_url).toMatch(backend === 'local' ? /^http:\/\/localhost:8080\/files\/resumes\/uploads\/.+sig=/ : /\/prep-test\/resumes\/uploads\/.+X-Amz-Signature=/);
    expect(body.key).toMatch(/^resumes\/uploads\/[0-9a-f-]{36}$/);
  });

  it('refuse an unknown candidate (404), another organisation\'s candidate (404) and a bad filename (400)', async () => {
    const other = await h.createOrg('Other');
    const theirs = await kit.candidate(other.keys.secret_test);
    for (const candidate_id of ['0190a1b2-0000-7000-8000-000000000000', theirs]) {
      const res = await kit.call('POST', '/v1/resumes/upload-url', { key: key(), body: { candidate_id, filename: 'a.pdf' } });
      expect(res.status).toBe(404);
      expect(res.body.error.param).toBe('candidate_id');
    }
    const candidateId = await kit.candidate(key());
    for (const filename of ['', 'x'.repeat(251)]) {
      const res = await kit.call('POST', '/v1/resumes/upload-url', { key: key(), body: { candidate_id: candidateId, filename } });
      expect(res.status).toBe(400);
      expect(res.body.error.param).toBe('filename');
    }
  });
});

describe.runIf(backend === 'local')('the local storage URLs', () => {
  it('refuse a tampered signature, another key, an expired URL (403), a file over 10 MiB (413) and a file that is no document (415)', async () => {
    const candidateId = await kit.candidate(key());
    const { upload_url: url } = await kit.ok('POST', '/v1/resumes/upload-url', { key: key(), body: { candidate_id: candidateId, filename: 'a.txt' } });
    const put = (u: string, payload: Buffer | string) => h.app.inject({ method: 'PUT', url: local(u), payload, headers: { 'content-type': 'application/pdf' } });

    const tampered = url.replace(/sig=(.)/, (_: string, c: string) => `sig=${c === 'A' ? 'B' : 'A'}`);
    let res = await put(tampered, TEXT_RESUME);
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('file_url_invalid');
    res = await put(url.replace('/resumes/uploads/', '/resumes/uploads/x'), TEXT_RESUME);
    expect(res.json().error.code).toBe('file_url_invalid');
    res = await put(url.replace(/max=\d+/, 'max=99999999'), TEXT_RESUME);
    expect(res.json().error.code).toBe('file_url_invalid');
    res = await put(`${url}&max=1`, TEXT_RESUME); // a repeated parameter is never what was signed
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('file_url_invalid');

    res = await put(url, Buffer.alloc(10 * 1024 * 1024 + 1, 0x41));
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('file_too_large');

    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    res = await put(url, Buffer.concat([png, Buffer.alloc(200)]));
    expect(res.statusCode).toBe(415);
    expect(res.json().error).toMatchObject({ code: 'unsupported_file_type', type: 'invalid_request_error' });

    h.clock.advance(901_000);
    res = await put(url, TEXT_RESUME);
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('file_url_expired');
  });

  // Was a risk (a security review): a link may be used again until it expires, and each upload is held in memory until
  // checked, so one candidate opening many slow uploads at once could exhaust the server's memory.
  it('take one upload at a time through a link, and bound the bytes all uploads hold at once', async () => {
    const candidateId = await kit.candidate(key());
    const { upload_url: url } = await kit.ok('POST', '/v1/resumes/upload-url', { key: key(), body: { candidate_id: candidateId, filename: 'a.txt' } });
    const slow = new PassThrough();
    // The first upload is under way once the route reads its body (it holds the link from before that).
    const storage = h.services.files.local!;
    const receive = storage.receive;
    let reading!: () => void;
    const underWay = new Promise<void>((resolve) => { reading = resolve; });
    storage.receive = (...args) => { reading(); return receive.apply(storage, args); };
    const first = h.app.inject({ method: 'PUT', url: local(url), payload: slow, headers: { 'content-type': 'text/plain' } });
    slow.write(TEXT_RESUME.slice(0, 100));
    try {
      await underWay;
    } finally {
      storage.receive = receive;
    }
    const second = await h.app.inject({ method: 'PUT', url: local(url), payload: TEXT_RESUME, headers: { 'content-type': 'text/plain' } });
    expect(second.statusCode).toBe(429);
    expect(second.json().error.code).toBe('rate_limited');
    expect(second.headers['retry-after']).toBe('5');
    slow.end(TEXT_RESUME.slice(100));
    expect((await first).statusCode).toBe(200);
    expect((await h.app.inject({ method: 'PUT', url: local(url), payload: TEXT_RESUME, headers: { 'content-type': 'text/plain' } })).statusCode).toBe(200);

    const budget = createUploadBudget(100);
    const a = budget.take('a', 60);
    expect(budget.take('a', 1)).toEqual({ refused: 'key_busy' });
    expect(budget.take('b', 41)).toEqual({ refused: 'full' });
    const b = budget.take('b', 40);
    expect('release' in a && 'release' in b).toBe(true);
    if ('release' in a) { a.release(); a.release(); } // twice changes nothing
    expect(budget.inFlight()).toBe(40);
  });
});

describe('registering a resume', () => {
  it('parses the uploaded file into fields, not yet scored', async () => {
    const { resume, candidateId } = await registered();
    expect(resume).toMatchObject({
      object: 'resume', candidate_id: candidateId, livemode: false, score: null,
      file: { content_type: 'text/plain', pages: 1, size: Buffer.byteLength(TEXT_RESUME) },
    });
    expect(resume.parsed).toMatchObject({ name: 'Maria Gonzalez', email: 'maria.gonzalez@example.com', phone: '+14155550142', location: 'Austin, TX' });
    expect(resume.parsed.experience.map((e: { company: string; start: string }) => [e.company, e.start])).toEqual([
      ['Northwind Payments', '2020-01'], ['Brightline Health', '2016-06'],
    ]);
    expect(resume.parsed.experience[0]).toMatchObject({ title: 'Senior Software Engineer', current: true, end: null });
    expect(resume.parsed.education[0]).toMatchObject({ institution: 'University of Texas at Austin', degree: 'B.S.', field: 'Computer Science', end: '2016-01' });
    const skills = Object.fromEntries(resume.parsed.skills.map((s: { canonical: string; evidence: string }) => [s.canonical, s.evidence]));
    expect(skills).toMatchObject({ Go: 'experience', Kafka: 'experience', Kubernetes: 'listed' });
    expect(resume.parsed.sections_found).toEqual(expect.arrayContaining(['summary', 'experience', 'education', 'skills']));
  });

  it('answers 404 resume_not_found for an unknown key, a key never uploaded to and another organisation\'s key; 409 when registered twice', async () => {
    const candidateId = await kit.candidate(key());
    let res = await kit.call('POST', '/v1/resumes', { key: key(), body: { candidate_id: candidateId, key: 'resumes/uploads/nope' } });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('resume_not_found');

    const { key: fresh } = await kit.ok('POST', '/v1/resumes/upload-url', { key: key(), body: { candidate_id: candidateId, filename: 'a.txt' } });
    res = await kit.call('POST', '/v1/resumes', { key: key(), body: { candidate_id: candidateId, key: fresh } });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('resume_not_found');

    const mine = await registered();
    const other = await h.createOrg('Other2');
    const theirCandidate = await kit.candidate(other.keys.secret_test);
    res = await kit.call('POST', '/v1/resumes', { key: other.keys.secret_test, body: { candidate_id: theirCandidate, key: mine.key } });
    expect(res.status).toBe(404);
    res = await kit.call('POST', '/v1/resumes', { key: key(), body: { candidate_id: mine.candidateId, key: mine.key } });
    expect(res.status).toBe(400); // invalid_request_error's status in the contract's table (409 is idempotency's)
    expect(res.body.error.code).toBe('resume_already_registered');
  });

  it('answers 422 unprocessable_resume, saying why, for a file that is not a resume', async () => {
    const candidateId = await kit.candidate(key());
    const { created, put } = await upload(key(), candidateId, 'Hello, this is a short note and nothing else.');
    expect(put.statusCode).toBe(200);
    const res = await kit.call('POST', '/v1/resumes', { key: key(), body: { candidate_id: candidateId, key: created.key } });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'unprocessable_resume', type: 'invalid_request_error' });
    expect(res.body.error.message).toMatch(/too little text/);
  });

  it.runIf(backend === 's3')('refuses at registration (422) what an S3 upload URL cannot refuse: over 10 MiB, not a document', async () => {
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(200)]);
    for (const [bytes, reason] of [[Buffer.alloc(10 * 1024 * 1024 + 1, 0x41), /larger than 10 MiB/], [png, /not a supported format/]] as const) {
      const candidateId = await kit.candidate(key());
      const { created, put } = await upload(key(), candidateId, bytes);
      expect(put.statusCode).toBe(200);
      const res = await kit.call('POST', '/v1/resumes', { key: key(), body: { candidate_id: candidateId, key: created.key } });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('unprocessable_resume');
      expect(res.body.error.message).toMatch(reason);
    }
  });

  it('keeps the registered bytes when the upload URL is used again', async () => {
    const candidateId = await kit.candidate(key());
    const { created } = await upload(key(), candidateId, TEXT_RESUME);
    const resume = await kit.ok('POST', '/v1/resumes', { key: key(), body: { candidate_id: candidateId, key: created.key } });
    const again = await send('PUT', created.upload_url, TEXT_RESUME.replace('Maria', 'Mallory'));
    expect(again.statusCode).toBe(200);
    const link = await kit.ok('GET', `/v1/resumes/${resume.id}/file`, { key: key() });
    const file = await send('GET', link.url);
    expect(file.body).toBe(TEXT_RESUME);
  });
});

describe('registration races', () => {
  /** Runs `during` right after registration has read the upload (while the worker would parse it), then restores the storage. */
  async function whileReading<T>(during: (key: string) => Promise<void>, register: () => Promise<T>): Promise<T> {
    const storage = h.services.files.storage;
    const read = storage.read;
    storage.read = async (k, max) => {
      const bytes = await read.call(storage, k, max);
      await during(k);
      return bytes;
    };
    try {
      return await register();
    } finally {
      storage.read = read;
    }
  }

  it('keeps the bytes it parsed even when the upload is replaced while it reads them', async () => {
    const candidateId = await kit.candidate(key());
    const { created } = await upload(key(), candidateId, TEXT_RESUME);
    const resume = await whileReading(
      (k) => h.services.files.storage.write(k, Buffer.from('replaced while parsing'), 'text/plain'), // a second PUT to the upload URL
      () => kit.ok('POST', '/v1/resumes', { key: key(), body: { candidate_id: candidateId, key: created.key } }),
    );
    const link = await kit.ok('GET', `/v1/resumes/${resume.id}/file`, { key: key() });
    expect((await send('GET', link.url)).body).toBe(TEXT_RESUME);
    expect(resume.file.size).toBe(Buffer.byteLength(TEXT_RESUME));
  });

  it('leaves nothing behind when the candidate is erased while the file is read', async () => {
    const candidateId = await kit.candidate(key());
    const { created } = await upload(key(), candidateId, TEXT_RESUME);
    const res = await whileReading(
      async () => void (await kit.ok('DELETE', `/v1/candidates/${candidateId}`, { key: key() })),
      () => kit.call('POST', '/v1/resumes', { key: key(), body: { candidate_id: candidateId, key: created.key } }),
    );
    expect(res.status).toBe(404);
    expect(res.body.error.param).toBe('candidate_id');
    expect(await h.db.kysely.selectFrom('resumes').select('id').where('candidate_id', '=', candidateId).execute()).toEqual([]);
  });

  it('hands out no upload URL whose file the erasure cannot find when the candidate is erased while it is signed', async () => {
    const storage = h.services.files.storage;
    const candidateId = await kit.candidate(key());
    const sign = storage.signedPutUrl;
    storage.signedPutUrl = async (...args: Parameters<typeof sign>) => {
      storage.signedPutUrl = sign;
      await kit.ok('DELETE', `/v1/candidates/${candidateId}`, { key: key() });
      return sign.apply(storage, args);
    };
    try {
      const res = await kit.call('POST', '/v1/resumes/upload-url', { key: key(), body: { candidate_id: candidateId, filename: 'Ada Lovelace CV.pdf' } });
      expect(res.status, res.raw).toBe(404);
      expect(res.body.error.param).toBe('candidate_id');
    } finally {
      storage.signedPutUrl = sign;
    }
    expect(await h.db.kysely.selectFrom('stored_files').select('key').where('candidate_id', '=', candidateId).execute()).toEqual([]);
  });

  it('deletes an upload made with a URL still valid after the candidate was erased, once the URL has expired', async () => {
    const storage = h.services.files.storage;
    const candidateId = await kit.candidate(key());
    const created = await kit.ok('POST', '/v1/resumes/upload-url', { key: key(), body: { candidate_id: candidateId, filename: 'late.txt' } });
    await kit.ok('DELETE', `/v1/candidates/${candidateId}`, { key: key() });
    await drainJobs();
    expect((await send('PUT', created.upload_url, TEXT_RESUME)).statusCode).toBe(200);
    expect(await storage.head(created.key)).not.toBeNull();
    h.clock.advance(901_000 + 60_000);
    await drainJobs();
    expect(await storage.head(created.key)).toBeNull();
  });

  it('deletes uploads a day after their URL expired', async () => {
    const storage = h.services.files.storage;
    const candidateId = await kit.candidate(key());
    const { created } = await upload(key(), candidateId, TEXT_RESUME);
    const sweep = h.modules.resumes.jobs().find((j) => j.kind === 'resumes.sweep_uploads')!;
    await sweep.run(null, {} as never);
    expect(await storage.head(created.key)).not.toBeNull();
    h.clock.advance(900_000 + 24 * 3_600_000 + 1000);
    await sweep.run(null, {} as never);
    expect(await storage.head(created.key)).toBeNull();
    const res = await kit.call('POST', '/v1/resumes', { key: key(), body: { candidate_id: candidateId, key: created.key } });
    expect(res.body.error.code).toBe('resume_not_found');
  });

  // Was a bug: registration wrote its copy of the file, then recorded it with the resume in one transaction; a process
  // killed between the two left a copy of the resume that no record named: erasing the candidate did not delete it,
  // and nothing else ever did.
  it('a registration killed after writing its copy of the file leaves nothing an erasure or the sweep misses', async () => {
    const storage = h.services.files.storage;
    const write = storage.write;
    const sweep = h.modules.resumes.jobs().find((j) => j.kind === 'resumes.sweep_uploads')!;
    for (const ending of ['erased', 'never registered'] as const) {
      const candidateId = await kit.candidate(key());
      const { created } = await upload(key(), candidateId, TEXT_RESUME);
      // The process stops right after the copy is written: the request never goes on.
      let copy: string | null = null;
      let stop!: (error: Error) => void;
      storage.write = async (k, body, type) => {
        await write.call(storage, k, body, type);
        copy = k;
        return new Promise<never>((_, reject) => (stop = reject));
      };
      const request = kit.call('POST', '/v1/resumes', { key: key(), body: { candidate_id: candidateId, key: created.key } });
      try {
        // The file is read and parsed first (in the parse pool, slow on a loaded machine): up to 20 s.
        for (const end = Date.now() + 20_000; copy === null && Date.now() < end;) await new Promise((r) => setTimeout(r, 10));
        expect(copy).toMatch(/^resumes\/files\//);
        expect(await storage.head(copy!)).not.toBeNull();
      } finally {
        storage.write = write;
      }
      if (ending === 'erased') {
        await kit.ok('DELETE', `/v1/candidates/${candidateId}`, { key: key() });
        await drainJobs();
      } else {
        h.clock.advance(3_600_000 + 24 * 3_600_000 + 1000);
        await sweep.run(null, {} as never);
      }
      expect(await storage.head(copy!), ending).toBeNull();
      stop(new Error('the process is gone'));
      expect((await request).status).toBeGreaterThanOrEqual(400);
    }
  });

  // Was a bug: each hourly run took at most 500 expired uploads, so more than 12,000 a day piled up for ever.
  it('keeps up with any rate of uploads: one run sweeps every expired upload, in batches', async () => {
    const storage = h.services.files.storage;
    const expired = h.clock.now() - 24 * 3_600_000 - 60_000;
    const keys = Array.from({ length: 1201 }, (_, i) => `resumes/uploads/sweep-test-${String(i).padStart(4, '0')}`);
    await h.db.kysely.insertInto('stored_files').values(keys.map((k) => ({
      key: k, organization_id: org.id, livemode: 0 as const, candidate_id: null, purpose: 'resume_upload', file_name: 'cv.pdf', first_party: 0 as const,
      expires_at: expired, created_at: expired - 900_000,
    }))).execute();
    for (const k of [keys[0], keys[keys.length - 1]]) await storage.write(k, Buffer.from(TEXT_RESUME), 'text/plain');
    const sweep = h.modules.resumes.jobs().find((j) => j.kind === 'resumes.sweep_uploads')!;
    await sweep.run(null, {} as never);
    expect(await h.db.kysely.selectFrom('stored_files').select('key').where('key', 'like', 'resumes/uploads/sweep-test-%').execute()).toEqual([]);
    for (const k of [keys[0], keys[keys.length - 1]]) expect(await storage.head(k)).toBeNull();
  }, 120_000); // 1,201 deletions (through S3 in one of the two runs): 3-5 s here, past 30 s on a loaded machine
});

describe('reading, listing and deleting', () => {
  it('lists newest first with keyset paging and a candidate filter; 404 across organisations and environments', async () => {
    const a = await registered();
    const b = await registered();
    const page = await kit.ok('GET', '/v1/resumes?limit=1', { key: key() });
    expect(page.data.map((r: { id: string }) => r.id)).toEqual([b.resume.id]);
    expect(page.has_more).toBe(true);
    const next = await kit.ok('GET', `/v1/resumes?limit=1&starting_after=${page.next_cursor}`, { key: key() });
    expect(next.data[0].id).toBe(a.resume.id);
    const filtered = await kit.ok('GET', `/v1/resumes?candidate_id=${a.candidateId}`, { key: key() });
    expect(filtered.data.map((r: { id: string }) => r.id)).toEqual([a.resume.id]);

    const other = await h.createOrg('Other3');
    for (const k of [other.keys.secret_test, org.keys.secret_live]) {
      for (const path of [`/v1/resumes/${a.resume.id}`, `/v1/resumes/${a.resume.id}/file`]) {
        const res = await kit.call('GET', path, { key: k });
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('resume_not_found');
      }
      expect((await kit.ok('GET', '/v1/resumes', { key: k })).data).toEqual([]);
    }
  });

  it('gives a signed, expiring download link without a file name for API uploads', async () => {
    const { resume } = await registered();
    const link = await kit.ok('GET', `/v1/resumes/${resume.id}/file`, { key: key() });
    expect(link).toMatchObject({ object: 'resume_file', expires_in: 300 });
    expect(link).not.toHaveProperty('file_name');
    const file = await send('GET', link.url);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('text/plain');
    expect(file.headers['content-disposition']).toContain(`resume-${resume.id}.txt`);
    expect((await send('GET', link.url.replace(/(type=text|content-type=text)/, '$1html'))).statusCode).toBe(403);
  });

  it('DELETE removes the record and keeps the file; erasing the candidate removes their files', async () => {
    const { resume, candidateId } = await registered();
    const row = await h.db.kysely.selectFrom('resumes').select(['file_key', 'upload_key']).where('id', '=', resume.id).executeTakeFirstOrThrow();
    const deleted = await kit.ok('DELETE', `/v1/resumes/${resume.id}`, { key: key() });
    expect(deleted).toEqual({ object: 'resume', id: resume.id, deleted: true });
    expect((await kit.call('GET', `/v1/resumes/${resume.id}`, { key: key() })).status).toBe(404);
    expect((await kit.call('DELETE', `/v1/resumes/${resume.id}`, { key: key() })).status).toBe(404);
    const storage = h.services.files.storage;
    expect(await storage.head(row.file_key)).not.toBeNull();

    await kit.ok('DELETE', `/v1/candidates/${candidateId}`, { key: key() });
    await drainJobs();
    expect(await storage.head(row.file_key)).toBeNull();
    expect(await storage.head(row.upload_key)).toBeNull();
  });
});

describe('erasure while storage is out', () => {
  it('removes the erased candidate\'s files once storage is back, even after a day out', async () => {
    const { candidateId } = await registered();
    const keys = (await h.db.kysely.selectFrom('resumes').select(['file_key', 'upload_key']).where('candidate_id', '=', candidateId).execute())
      .flatMap((r) => [r.file_key, r.upload_key]);
    const storage = h.services.files.storage;
    const backAt = h.clock.now() + 30 * 3_600_000;
    const realDelete = storage.delete;
    storage.delete = async (key) => (h.clock.now() < backAt ? Promise.reject(new Error('storage unavailable')) : realDelete.call(storage, key));
    try {
      await kit.ok('DELETE', `/v1/candidates/${candidateId}`, { key: key() });
      await settleJobs(h, ['storage.delete'], 'the erasure\'s deletions');
    } finally {
      storage.delete = realDelete;
    }
    expect(h.clock.now()).toBeGreaterThanOrEqual(backAt);
    for (const k of keys) expect(await storage.head(k)).toBeNull();
  });

  // Was a gap: deletions storage refused for a week (the job's 32 tries) stopped with a plain "job failed for good":
  // an erased person's files stayed in storage and no one was told which. The give-up logs them at error level.
  it('gives up on files storage will not delete after a week of tries, loudly, naming the files it leaves', async () => {
    const { candidateId } = await registered();
    const keys = (await h.db.kysely.selectFrom('resumes').select(['file_key', 'upload_key']).where('candidate_id', '=', candidateId).execute())
      .flatMap((r) => [r.file_key, r.upload_key]);
    const storage = h.services.files.storage;
    const realDelete = storage.delete;
    storage.delete = async () => Promise.reject(new Error('storage unavailable'));
    const logged: Array<{ obj: any; msg: string }> = [];
    const worker = createWorker({
      queue: h.services.queue, clock: h.clock, log: { error: (obj, msg) => void logged.push({ obj, msg }) },
      handlers: jobHandlers(h.services, h.modules).filter((j) => j.kind === 'storage.delete'),
    });
    try {
      await kit.ok('DELETE', `/v1/candidates/${candidateId}`, { key: key() });
      const job = () => h.db.kysely.selectFrom('background_jobs').selectAll().where('kind', '=', 'storage.delete')
        .where('payload', 'like', `%${keys[0]}%`).orderBy('created_at').executeTakeFirstOrThrow();
      for (let round = 0; round < 100 && (await job()).status === 'queued'; round++) {
        while ((await worker.runOnce()) > 0) { /* drain */ }
        const { run_at: runAt, status } = await job();
        if (status === 'queued' && runAt > h.clock.now()) h.clock.set(runAt);
      }
      const given = await job();
      expect(given).toMatchObject({ status: 'failed', attempts: 32 });
      expect(given.last_error).toContain('storage unavailable; left undone');
      const giveUp = logged.find((l) => l.msg === 'job failed for good, leaving work undone' && l.obj.job_id === given.id);
      expect(giveUp?.obj).toMatchObject({ kind: 'storage.delete', attempt: 32 });
      expect(giveUp!.obj.left).toEqual(JSON.parse(given.payload).keys);
      expect(giveUp!.obj.left).toEqual(expect.arrayContaining(keys));
    } finally {
      storage.delete = realDelete;
    }
    await drainJobs();
  });

  // Was a bug (a privacy review): the files' records kept the name each was uploaded under (often the person's own)
  // until their deletion succeeded, so for as long as storage was out, or for good once its tries ran out.
  it('forgets the names the files were uploaded under at once', async () => {
    const candidateId = await kit.candidate(key());
    const created = await kit.ok('POST', '/v1/resumes/upload-url', { key: key(), body: { candidate_id: candidateId, filename: 'Zebulon-Quixotevich-CV.txt' } });
    expect((await send('PUT', created.upload_url, TEXT_RESUME)).statusCode).toBe(200);
    await kit.ok('POST', '/v1/resumes', { key: key(), body: { candidate_id: candidateId, key: created.key } });
    const named = () => h.db.kysely.selectFrom('stored_files').select('key').where('file_name', 'like', '%Quixotevich%').execute();
    expect((await named()).length).toBeGreaterThan(0);
    await kit.ok('DELETE', `/v1/candidates/${candidateId}`, { key: key() });
    expect(await named()).toEqual([]); // before any deletion job has run
    await drainJobs();
  });
});

describe('scoring', () => {
  const brief = { role: 'Senior Backend Engineer', job_description: 'Requirements:\n- 5+ years of backend experience\n- Go and Kafka\n- PostgreSQL\nNice to have:\n- Kubernetes' };

  async function balance(k: string) {
    return (await kit.ok('GET', '/v1/usage', { key: k })).credits?.resume ?? null;
  }
  const scoredEvents = async (resumeId: string) => (await h.db.kysely.selectFrom('events').select('payload').where('type', '=', 'resume.scored').execute())
    .map((e) => JSON.parse(e.payload)).filter((e) => e.data.object.id === resumeId);

  it('charges one credit per brief, returns the stored score for an unchanged brief, and emits resume.scored once per charge', async () => {
    const fresh = await h.createOrg('Scoring', 3);
    const k = fresh.keys.secret_live;
    const { resume, candidateId } = await registered(k);
    const ledger = async () => Number((await h.db.kysely.selectFrom('credit_ledger').select((eb) => eb.fn.sum<number>('amount').as('n'))
      .where('organization_id', '=', fresh.id).where('livemode', '=', 1).where('kind', '=', 'resume').executeTakeFirstOrThrow()).n);
    expect(await ledger()).toBe(3);

    const scored = await kit.ok('POST', `/v1/resumes/${resume.id}/score`, { key: k, body: brief }, 200);
    expect(scored.score).toMatchObject({ mode: 'brief', role: 'Senior Backend Engineer', narrative: null });
    expect(scored.score.overall).toBeGreaterThanOrEqual(0);
    expect(scored.score.requirements.length).toBeGreaterThan(0);
    expect(await ledger()).toBe(2);

    const same = await kit.ok('POST', `/v1/resumes/${resume.id}/score`, { key: k, body: { role: ' Senior  Backend Engineer ', job_description: `\n${brief.job_description.replace(/\n/g, '\n\n')}  ` } }, 200);
    expect(same.score).toEqual(scored.score);
    expect(await ledger()).toBe(2);

    const standalone = await kit.ok('POST', `/v1/resumes/${resume.id}/score`, { key: k }, 200);
    expect(standalone.score.mode).toBe('standalone');
    expect(await ledger()).toBe(1);
    expect((await kit.ok('GET', `/v1/resumes/${resume.id}`, { key: k })).score.mode).toBe('standalone');

    const events = await scoredEvents(resume.id);
    expect(events).toHaveLength(2);
    expect(events[0].data.object).toMatchObject({ id: resume.id, candidate_id: candidateId, overall: scored.score.overall, brief_fingerprint: scored.score.brief_fingerprint });

    await kit.ok('POST', `/v1/resumes/${resume.id}/score`, { key: k, body: { role: 'Data Engineer' } }, 200);
    const broke = await kit.call('POST', `/v1/resumes/${resume.id}/score`, { key: k, body: { role: 'Product Designer' } });
    expect(broke.status).toBe(402);
    expect(broke.body.error.code).toBe('insufficient_credits');
    expect(await scoredEvents(resume.id)).toHaveLength(3);
    void balance;
  });

  it('scores concurrent requests for one brief once', async () => {
    const fresh = await h.createOrg('Race', 5);
    const k = fresh.keys.secret_live;
    const { resume } = await registered(k);
    const replies = await Promise.all([1, 2, 3, 4].map(() => kit.call('POST', `/v1/resumes/${resume.id}/score`, { key: k, body: brief })));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(new Set(replies.map((r) => JSON.stringify(r.body.score))).size).toBe(1);
    expect(await scoredEvents(resume.id)).toHaveLength(1);
  });

  it('bounds the brief and 404s an unknown resume', async () => {
    const { resume } = await registered();
    const res = await kit.call('POST', `/v1/resumes/${resume.id}/score`, { key: key(), body: { job_description: 'x'.repeat(20_001) } });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('job_description');
    const missing = await kit.call('POST', '/v1/resumes/0190a1b2-0000-7000-8000-000000000000/score', { key: key(), body: {} });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('resume_not_found');
  });
});
});

describe('scoring with a configured model', () => {
  let h: Harness;
  let kit: TestClient;
  let model: Awaited<ReturnType<typeof startFakeModel>>;
  let answer = '';
  beforeAll(async () => {
    model = await startFakeModel(() => answer);
    h = await startHarness({ env: model.env });
    kit = testClient(h);
  });
  afterAll(async () => {
    await h?.close();
    await model?.close();
  });

  async function resumeId(k: string, text = TEXT_RESUME) {
    const candidateId = await kit.candidate(k);
    const created = await kit.ok('POST', '/v1/resumes/upload-url', { key: k, body: { candidate_id: candidateId, filename: 'cv.txt' } });
    await h.app.inject({ method: 'PUT', url: new URL(created.upload_url).pathname + new URL(created.upload_url).search, payload: text });
    return (await kit.ok('POST', '/v1/resumes', { key: k, body: { candidate_id: candidateId, key: created.key } })).id as string;
  }

  it('adds the model\'s narrative beside the built-in evidence, without the name or contact details', async () => {
    answer = JSON.stringify({ summary: 'Strong backend profile.', strengths: ['Kafka at scale'], concerns: ['No Kubernetes in production'] });
    model.requests = [];
    const k = h.org.keys.secret_test;
    const id = await resumeId(k);
    const scored = await kit.ok('POST', `/v1/resumes/${id}/score`, { key: k, body: { role: 'Backend Engineer' } }, 200);
    expect(scored.score.narrative).toEqual({ status: 'ok', model: 'reviewer-1', summary: 'Strong backend profile.', strengths: ['Kafka at scale'], concerns: ['No Kubernetes in production'] });
    expect(scored.score.requirements.length + scored.score.quality.completeness.evidence.length).toBeGreaterThan(0);
    expect(model.requests).toHaveLength(1);
    const sent = JSON.stringify(model.requests[0].body);
    for (const personal of ['Maria', 'Gonzalez', 'maria.gonzalez@example.com', '555', 'University of Texas']) expect(sent).not.toContain(personal);
  });

  // Was a bug: the narrative's text was the summary and bullets as written, so a name, address or link written there
  // went to the model, which docs/resumes.md says is never given contact details.
  it('gives the model no name, e-mail address or link written in the summary or the bullets', async () => {
    answer = JSON.stringify({ summary: 'Strong backend profile.', strengths: [], concerns: [] });
    model.requests = [];
    const k = h.org.keys.secret_test;
    const text = TEXT_RESUME
      .replace('Backend engineer with seven years', 'Maria Gonzalez: backend engineer (maria.gonzalez@example.com, https://maria.example.dev/cv) with seven years')
      .replace('- Cut p99 latency', '- Wrote up at github.com/maria-gonzalez-example how Maria Gonzalez cut p99 latency; ask me at m.g+jobs@mail.example.org. Cut p99 latency');
    await kit.ok('POST', `/v1/resumes/${await resumeId(k, text)}/score`, { key: k, body: { role: 'Backend Engineer' } }, 200);
    expect(model.requests).toHaveLength(1);
    const sent = JSON.stringify(model.requests[0].body);
    expect(sent).toContain('Kafka');
    for (const personal of ['Maria', 'Gonzalez', 'maria.gonzalez@example.com', 'm.g+jobs', 'maria.example.dev', 'github.com/maria']) expect(sent).not.toContain(personal);
  });

  // Was a bug: the check before the model's round trip looked at the credit balance only, so a test-mode organisation
  // whose monthly sandbox quota was used up paid for the narrative and was then refused.
  it('refuses a test-mode score past the sandbox quota before asking the model', async () => {
    answer = JSON.stringify({ summary: 'Strong backend profile.', strengths: [], concerns: [] });
    const k = h.org.keys.secret_test;
    const id = await resumeId(k);
    const period = quotaPeriod(h.clock.now());
    await h.db.kysely.insertInto('sandbox_quota').values({ organization_id: h.org.id, period, used: 1_000_000 })
      .onConflict((oc) => oc.columns(['organization_id', 'period']).doUpdateSet({ used: 1_000_000 })).execute();
    model.requests = [];
    try {
      const refused = await kit.call('POST', `/v1/resumes/${id}/score`, { key: k, body: { role: 'Site Reliability Engineer' } });
      expect(refused.status).toBe(402);
      expect(refused.body.error.code).toBe('sandbox_quota_exceeded');
      expect(model.requests).toHaveLength(0);
    } finally {
      await h.db.kysely.deleteFrom('sandbox_quota').where('organization_id', '=', h.org.id).execute();
    }
  });

  // Was a bug: a resume deleted (or its candidate erased) while the model wrote its narrative, seconds, failed the
  // score's insert on the foreign key: 500.
  it('answers 404, charging nothing, when the resume is deleted while the model writes the narrative', async () => {
    answer = JSON.stringify({ summary: 'Strong backend profile.', strengths: [], concerns: [] });
    const k = h.org.keys.secret_test;
    const id = await resumeId(k);
    const credits = async () => (await kit.ok('GET', '/v1/usage', { key: k })).credits?.resume;
    const before = await credits();
    model.requests = [];
    model.holding = true;
    try {
      const scoring = kit.call('POST', `/v1/resumes/${id}/score`, { key: k, body: { role: 'Backend Engineer' } });
      while (model.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
      await kit.ok('DELETE', `/v1/resumes/${id}`, { key: k });
      model.release();
      const res = await scoring;
      expect(res.status, res.raw.slice(0, 300)).toBe(404);
      expect(res.body.error.code).toBe('resume_not_found');
    } finally {
      model.holding = false;
      model.release();
    }
    expect(await credits()).toBe(before);
    expect(await h.db.kysely.selectFrom('resume_scores').select('id').where('resume_id', '=', id).execute()).toEqual([]);
  });

  it('keeps the built-in score, flagged, when the model fails or answers out of shape', async () => {
    const k = h.org.keys.secret_test;
    model.failing = true;
    try {
      const scored = await kit.ok('POST', `/v1/resumes/${await resumeId(k)}/score`, { key: k }, 200);
      expect(scored.score.narrative).toMatchObject({ status: 'failed', model: 'reviewer-1' });
      expect(scored.score.flags).toContain('model_unavailable');
      expect(scored.score.overall).toBeGreaterThan(0);
    } finally {
      model.failing = false;
    }
    answer = 'I think this candidate is great!';
    const prose = await kit.ok('POST', `/v1/resumes/${await resumeId(k)}/score`, { key: k }, 200);
    expect(prose.score.narrative).toMatchObject({ status: 'failed', reason: 'the model did not answer with JSON' });
  });

  // Was a bug: a model outage marked the stored score for good: re-sending the brief returned the failed narrative and
  // never asked the model again. The re-request now asks again, stores the narrative, and charges and emits nothing.
  it('asks the model again when an unchanged brief is re-sent after its narrative failed, charging and emitting nothing', async () => {
    const fresh = await h.createOrg('Narrative retry', 5);
    const k = fresh.keys.secret_live;
    const id = await resumeId(k);
    const body = { role: 'Backend Engineer' };
    const credits = async () => (await kit.ok('GET', '/v1/usage', { key: k })).credits?.resume;
    const events = async () => (await h.db.kysely.selectFrom('events').select('payload').where('type', '=', 'resume.scored').execute())
      .map((e) => JSON.parse(e.payload)).filter((e) => e.data.object.id === id);
    model.failing = true;
    let failed;
    try {
      failed = await kit.ok('POST', `/v1/resumes/${id}/score`, { key: k, body }, 200);
      expect(failed.score.narrative).toMatchObject({ status: 'failed' });
      // Still down: the stored score is returned as it was.
      expect((await kit.ok('POST', `/v1/resumes/${id}/score`, { key: k, body }, 200)).score).toEqual(failed.score);
    } finally {
      model.failing = false;
    }
    const charged = await credits();
    answer = JSON.stringify({ summary: 'Strong backend profile.', strengths: ['Kafka'], concerns: [] });
    // Two at once: one narrative is stored, and both answer with it.
    model.requests = [];
    const replies = await Promise.all([1, 2].map(() => kit.call('POST', `/v1/resumes/${id}/score`, { key: k, body })));
    expect(replies.map((r) => r.status)).toEqual([200, 200]);
    expect(replies[0].body.score).toEqual(replies[1].body.score);
    const again = replies[0].body;
    expect(again.score.narrative).toEqual({ status: 'ok', model: 'reviewer-1', summary: 'Strong backend profile.', strengths: ['Kafka'], concerns: [] });
    expect(again.score.flags).not.toContain('model_unavailable');
    expect({ ...again.score, narrative: null, flags: [] }).toEqual({ ...failed.score, narrative: null, flags: [] });
    expect((await kit.ok('GET', `/v1/resumes/${id}`, { key: k })).score).toEqual(again.score);
    expect(await credits()).toBe(charged);
    expect(await events()).toHaveLength(1);
    // Stored now: the model is not asked again.
    model.requests = [];
    expect((await kit.ok('POST', `/v1/resumes/${id}/score`, { key: k, body }, 200)).score).toEqual(again.score);
    expect(model.requests).toHaveLength(0);
  });
});
