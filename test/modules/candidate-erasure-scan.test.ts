import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECT, type Harness, type Org } from '../helpers/harness.js';
import { interviewSuite, tinyPng, type InterviewKit } from '../helpers/interviews.js';
import { GOOD_PROMPT, promptKit } from '../helpers/prompt-engineering.js';
import { psychometricKit } from '../helpers/psychometric.js';
import { settleJobs } from '../helpers/settle.js';

/**
 * A privacy review of DELETE /v1/candidates/{id}: a candidate with data in every module is erased, then every table
 * of the database and every file of the storage directory is searched for their name, address and phone number.
 * Documented as kept (api-design.md): anonymous sessions, interviews and submissions, counts, the credit ledger,
 * events naming ids only. None of these holds the strings searched for.
 */

const SURNAME = 'Quixotevich';
const NAME = `Zebulon ${SURNAME}`;
const EMAIL = 'zebulon.quixotevich@erasure-scan.test';
const PHONE = '7700900123';
const NEEDLES = [SURNAME.toLowerCase(), 'zebulon.quixotevich', PHONE];

const RESUME = `${NAME}
${EMAIL} | +44 ${PHONE} | London, UK

Summary
Backend engineer with seven years of experience building payment APIs.

Experience
Senior Software Engineer, Northwind Payments   Jan 2020 – Present
- Built a Kafka pipeline in Go processing 40,000 events per second
- Cut p99 latency by 35% by moving hot reads to Redis
Software Engineer, Brightline Health   06/2016 - 12/2019
- Wrote Python services on PostgreSQL and Docker for 2 million patients

Education
University of Oxford — B.S. in Computer Science — 2016

Skills
Go, Python, PostgreSQL, Redis, Kafka, Docker, Kubernetes
`;

const PNG = tinyPng(Buffer.from(`tEXt${NAME}`));

let h: Harness;
let kit: InterviewKit;
let org: Org;

beforeAll(async () => {
  ({ h, kit, org } = await interviewSuite({ PREP_RATE_LIMIT_MODEL: '100000' }));
});
afterAll(async () => {
  await h?.close();
});

const local = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};
const put = async (url: string, body: Buffer | string) => {
  const res = await h.app.inject({ method: 'PUT', url: local(url), payload: body, headers: { 'content-type': 'application/octet-stream' } });
  expect(res.statusCode, res.body).toBe(200);
};

/** Every row of every table, as `table: json` lines holding one of the needles. */
async function databaseHits(): Promise<string[]> {
  const db = h.db.kysely;
  const tables = DIALECT === 'sqlite'
    ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db)).rows.map((r) => r.name)
    : (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)).rows.map((r) => r.name);
  expect(tables).toContain('candidates');
  const hits: string[] = [];
  for (const table of tables) {
    const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db)).rows;
    for (const row of rows) {
      const text = JSON.stringify(row, (_k, v: unknown) => (Buffer.isBuffer(v) || v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : typeof v === 'bigint' ? String(v) : v)).toLowerCase();
      if (NEEDLES.some((n) => text.includes(n))) hits.push(`${table}: ${text.slice(0, 400)}`);
    }
  }
  return hits;
}

/** Every stored file holding one of the needles. */
function storageHits(): string[] {
  const root = h.config.storage.dir as string;
  const hits: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const file = path.join(dir, entry);
      if (statSync(file).isDirectory()) walk(file);
      else if (NEEDLES.some((n) => readFileSync(file).toString('latin1').toLowerCase().includes(n))) hits.push(path.relative(root, file));
    }
  };
  walk(root);
  return hits;
}

describe('session tokens of an erased candidate', () => {
  // Was a bug (a privacy review): the erasure closed the sessions but left their tokens valid, so whoever held a
  // psychometric session's token still read the erased person's answers, and any token still refreshed.
  it('stop working at once, for every kind of session and for interviews', async () => {
    const key = org.keys.secret_test;
    const client = kit.client;
    const candidateId = await client.candidate(key, { name: NAME });
    const psy = psychometricKit(h);
    const psyAssigned = await client.assign(key, 'psychometric', await psy.testId(key, 'mini-ipip'), candidateId);
    const psyToken = await client.token(key, 'psychometric', psyAssigned.id);
    const started = await client.ok('POST', `/v1/psychometric-sessions/${psyAssigned.id}/start`, { token: psyToken }, 200);
    await client.ok('POST', `/v1/psychometric-sessions/${psyAssigned.id}/progress`, { token: psyToken, body: { answers: [{ item_id: started.items[0].id, value: 5 }] } }, 200);
    const codingTest = await h.db.kysely.selectFrom('coding_tests').select('id').where('slug', '=', 'core-data-structures-screen').executeTakeFirstOrThrow();
    const coding = await client.assign(key, 'coding', codingTest.id, candidateId);
    const codingToken = await client.token(key, 'coding', coding.id);
    const interview = await kit.create(key, {}, candidateId);
    const interviewToken = await kit.token(key, interview.id);
    const refresh = await client.call('POST', '/v1/sessions/refresh', { token: psyToken });
    expect(refresh.status, refresh.raw).toBe(201);

    await client.ok('DELETE', `/v1/candidates/${candidateId}`, { key }, 200);

    const read = await client.call('GET', `/v1/psychometric-sessions/${psyAssigned.id}`, { token: psyToken });
    expect(read.status, read.raw).toBe(401);
    expect(read.raw).not.toContain('"answers"');
    for (const token of [psyToken, refresh.body.session_token, codingToken, interviewToken]) {
      const context = await client.call('GET', '/v1/session', { token });
      expect(context.status, context.raw).toBe(401);
      expect(context.body.error.code).toBe('invalid_session_token');
      expect((await client.call('POST', '/v1/sessions/refresh', { token })).status).toBe(401);
    }
  });
});

describe('erasing a candidate with data in every module', () => {
  it('leaves none of their name, address or phone number in any table or stored file', async () => {
    const key = org.keys.secret_live;
    const client = kit.client;
    const candidateId = (await client.ok('POST', '/v1/candidates', { key, body: { email: EMAIL, name: NAME }, headers: { 'idempotency-key': `scan-${Date.now()}` } })).id as string;

    // Resumes: registered (parsed), scored, a second upload never registered, and a deleted one.
    const upload = await client.ok('POST', '/v1/resumes/upload-url', { key, body: { candidate_id: candidateId, filename: `${SURNAME}-cv.txt` } });
    await put(upload.upload_url, RESUME);
    const resume = await client.ok('POST', '/v1/resumes', { key, body: { candidate_id: candidateId, key: upload.key }, headers: { 'idempotency-key': `resume-${Date.now()}` } });
    expect(JSON.stringify(resume.parsed)).toContain(SURNAME);
    await client.ok('POST', `/v1/resumes/${resume.id}/score`, { key, body: { role: 'Backend Engineer' } }, 200);
    const loose = await client.ok('POST', '/v1/resumes/upload-url', { key, body: { candidate_id: candidateId, filename: `${SURNAME}-2.txt` } });
    await put(loose.upload_url, RESUME);
    const gone = await client.ok('POST', '/v1/resumes/upload-url', { key, body: { candidate_id: candidateId, filename: `${SURNAME}-3.txt` } });
    await put(gone.upload_url, RESUME);
    const goneResume = await client.ok('POST', '/v1/resumes', { key, body: { candidate_id: candidateId, key: gone.key } });
    await client.ok('DELETE', `/v1/resumes/${goneResume.id}`, { key }, 200);

    // Coding: a session with submissions naming them (one that fails to compile), a run, proctoring signals with meta.
    const codingTest = await h.db.kysely.selectFrom('coding_tests').select('id').where('slug', '=', 'core-data-structures-screen').executeTakeFirstOrThrow();
    const coding = await client.assign(key, 'coding', codingTest.id, candidateId);
    const codingToken = await client.token(key, 'coding', coding.id);
    await client.ok('POST', `/v1/coding-sessions/${coding.id}/start`, { token: codingToken }, 200);
    const problemId = coding.problems[0].problem.id as string;
    const submitted = await client.call('POST', `/v1/coding-sessions/${coding.id}/submissions`, {
      token: codingToken, body: { problem_id: problemId, language: 'python', source: `# ${NAME} ${EMAIL}\nprint("${NAME}")\n` }, headers: { 'idempotency-key': 'sub-1' },
    });
    const failed = await client.call('POST', `/v1/coding-sessions/${coding.id}/submissions`, {
      token: codingToken, body: { problem_id: problemId, language: 'c', source: `int main(void) { ${SURNAME} x; return 0; }\n` },
    });
    expect([submitted.status, failed.status], failed.raw).toEqual([202, 202]);
    await client.call('POST', `/v1/coding-sessions/${coding.id}/run`, {
      token: codingToken, body: { problem_id: problemId, language: 'python', source: `print("${NAME}")\n`, stdin: EMAIL }, headers: { 'idempotency-key': 'run-1' },
    });
    await client.ok('POST', `/v1/coding-sessions/${coding.id}/events`, { token: codingToken, body: { events: [{ type: 'paste', meta: { text: NAME, email: EMAIL } }] } }, 202);
    await settleJobs(h, ['coding.judge'], 'judging');
    const codingLink = await client.ok('POST', `/v1/coding-sessions/${coding.id}/launch-link`, { key, body: {} }, 201);

    // Psychometric: answers saved.
    const psy = psychometricKit(h);
    const psyAssigned = await client.assign(key, 'psychometric', await psy.testId(key, 'mini-ipip'), candidateId);
    const psyToken = await client.token(key, 'psychometric', psyAssigned.id);
    const started = await client.ok('POST', `/v1/psychometric-sessions/${psyAssigned.id}/start`, { token: psyToken }, 200);
    await client.ok('POST', `/v1/psychometric-sessions/${psyAssigned.id}/progress`, { token: psyToken, body: { answers: started.items.slice(0, 3).map((i: { id: string }) => ({ item_id: i.id, value: 4 })) } }, 200);

    // Prompt engineering: an attempt whose prompt names them.
    const pk = promptKit(h);
    const { assessmentId, taskId } = await pk.fixture(org.id);
    const pe = await client.assign(key, 'prompt_engineering', assessmentId, candidateId);
    const peToken = await client.token(key, 'prompt_engineering', pe.id);
    await client.ok('POST', `/v1/prompt-engineering-sessions/${pe.id}/start`, { token: peToken }, 200);
    const attempt = await client.call('POST', `/v1/prompt-engineering-sessions/${pe.id}/attempts`, {
      token: peToken, body: { task_id: taskId, prompt: `${GOOD_PROMPT} Signed, ${NAME} (${EMAIL}).` }, headers: { 'idempotency-key': 'attempt-1' },
    });
    expect(attempt.status, attempt.raw).toBe(202);
    await pk.settle();

    // Interviews: one under way (words, code, whiteboard, recording, signals) on their resume; one invited, not joined.
    const interview = await kit.create(key, { key: upload.key }, candidateId);
    const token = await kit.token(key, interview.id);
    await kit.join(token, interview.id);
    const channel = await kit.connect(token, interview.id);
    await channel.next('ready');
    await channel.interviewerTurn(0);
    await channel.answer(`Hello, I am ${NAME}; reach me at ${EMAIL} or +44 ${PHONE}.`);
    await client.call('POST', `/v1/interviews/${interview.id}/code`, { token, body: { language: 'python', source: `print("${NAME}")`, run: true }, headers: { 'idempotency-key': 'code-1' } });
    const board = await client.ok('POST', `/v1/interviews/${interview.id}/board-upload-url`, { token });
    await put(board.upload_url, PNG);
    channel.send({ type: 'recording.chunk_url', index: 0 });
    const piece = await channel.next('recording.chunk_url');
    await put(piece.url, Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), Buffer.from(`voice of ${NAME}`)]));
    await client.call('POST', `/v1/interviews/${interview.id}/events`, { token, body: { events: [{ type: 'tab_hidden', meta: { who: NAME } }] } });
    const invited = await kit.create(key, { send_invitation: true }, candidateId);
    expect(JSON.stringify(invited)).toContain(EMAIL);
    const interviewLink = await client.ok('POST', `/v1/interviews/${invited.id}/launch-link`, { key, body: {} }, 201);

    expect((await databaseHits()).length).toBeGreaterThan(0);
    expect(storageHits().length).toBeGreaterThan(0);

    // Another organisation cannot erase them.
    const other = await h.createOrg('Other');
    expect((await client.call('DELETE', `/v1/candidates/${candidateId}`, { key: other.keys.secret_live })).status).toBe(404);
    expect((await client.call('DELETE', `/v1/candidates/${candidateId}`, { key: org.keys.secret_test })).status).toBe(404);

    await client.ok('DELETE', `/v1/candidates/${candidateId}`, { key }, 200);
    expect((await client.call('DELETE', `/v1/candidates/${candidateId}`, { key })).status).toBe(404);
    await channel.next('ended');
    await channel.close();

    // Tokens and launch links stop at once.
    for (const t of [codingToken, psyToken, peToken, token]) expect((await client.call('GET', '/v1/session', { token: t })).status).toBe(401);
    for (const link of [codingLink, interviewLink]) {
      const launchToken = new URLSearchParams(new URL(link.url).hash.slice(1)).get('token');
      const res = await client.call('POST', '/v1/launch/exchange', { body: { token: launchToken } });
      expect(res.status, res.raw).not.toBe(201);
    }

    // Everything the erasure queued, then again after the upload links have expired.
    const kinds = ['storage.delete', 'interview.erase-files', 'interview.process', 'interview.recording', 'coding.judge', 'coding.complete',
      'psychometric.complete', 'prompt_engineering.grade', 'prompt_engineering.complete', 'interview.invite'];
    await settleJobs(h, kinds, 'erasure');
    h.clock.advance(20 * 60_000);
    await settleJobs(h, kinds, 'erasure, later');

    expect(await databaseHits()).toEqual([]);
    expect(storageHits()).toEqual([]);
  });
});
