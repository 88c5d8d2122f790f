import { randomUUID } from 'node:crypto';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/platform/errors.js';
import { IDEMPOTENCY_LOCK_MS, IDEMPOTENCY_TTL_MS } from '../../src/platform/idempotency.js';
import { bearer, startHarness, type Harness, type Org } from '../helpers/harness.js';
import { startServe, type ServeProcess } from '../helpers/processes.js';

/** A promise the test resolves by hand. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** The hidden slow create: it tells the test it is running, then waits until the test lets it finish. */
const slow = { executions: 0, entered: deferred(), gate: deferred() };
function resetSlow() {
  slow.executions = 0;
  slow.entered = deferred();
  slow.gate = deferred();
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    extend: (app) => {
      app.route({
        method: 'POST', url: '/v1/test/slow-create',
        schema: {
          hide: true,
          body: Type.Object({ label: Type.String({ maxLength: 50 }) }, { additionalProperties: false }),
          response: { 201: Type.Object({ id: Type.String(), label: Type.String(), execution: Type.Integer() }) },
        },
        config: { auth: 'secret', idempotent: true },
        handler: async (request, reply) => {
          const execution = ++slow.executions;
          slow.entered.resolve();
          await slow.gate.promise;
          if (request.body.label === 'fail-first' && execution === 1) throw new ApiError('parameter_invalid', { param: 'label' });
          return reply.code(201).send({ id: randomUUID(), label: request.body.label, execution });
        },
      });
      // A create whose response names a candidate (as a resume registration's does), slow like the one above.
      app.route({
        method: 'POST', url: '/v1/test/slow-named-create',
        schema: {
          hide: true,
          body: Type.Object({ candidate_id: Type.String({ maxLength: 64 }) }, { additionalProperties: false }),
          response: { 201: Type.Object({ object: Type.String(), id: Type.String(), candidate_id: Type.String(), execution: Type.Integer() }) },
        },
        config: { auth: 'secret', idempotent: true },
        handler: async (request, reply) => {
          const execution = ++slow.executions;
          slow.entered.resolve();
          await slow.gate.promise;
          return reply.code(201).send({ object: 'resume', id: randomUUID(), candidate_id: request.body.candidate_id, execution });
        },
      });
    },
  });
});
afterAll(() => h?.close());

const uniq = () => randomUUID().slice(0, 8);
const newKey = () => `idem-${randomUUID()}`;
const newEmail = () => `cand-${uniq()}@example.com`;

function createCandidate(key: string, body: unknown, idempotencyKey?: string) {
  return h.app.inject({
    method: 'POST', url: '/v1/candidates',
    headers: bearer(key, idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
    payload: body as Record<string, unknown>,
  });
}

function slowCreate(key: string, label: string, idempotencyKey: string) {
  return h.app.inject({ method: 'POST', url: '/v1/test/slow-create', headers: bearer(key, { 'idempotency-key': idempotencyKey }), payload: { label } });
}

async function candidateRows(email: string, org: Org = h.org) {
  return h.db.kysely.selectFrom('candidates').selectAll()
    .where('organization_id', '=', org.id).where('email', '=', email).execute();
}

async function storedKeys(idempotencyKey: string) {
  return h.db.kysely.selectFrom('idempotency_keys').selectAll().where('key', '=', idempotencyKey).execute();
}

function expectIdempotencyError(res: { statusCode: number; json(): any }, status: number, code: string) {
  expect(res.statusCode).toBe(status);
  const body = res.json();
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.type).toBe('idempotency_error');
  expect(body.error.code).toBe(code);
  expect(body.error.request_id).toMatch(/^req_/);
}

describe('Idempotency-Key on creates', () => {
  it('replays the first response verbatim and creates one record', async () => {
    const key = newKey();
    const body = { email: newEmail(), name: 'Ada Lovelace' };
    const first = await createCandidate(h.org.keys.secret_test, body, key);
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replay']).toBeUndefined();

    const second = await createCandidate(h.org.keys.secret_test, body, key);
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replay']).toBe('true');
    expect(second.body).toBe(first.body); // byte-identical
    expect(second.headers['content-type']).toBe(first.headers['content-type']);
    // A replay is still its own request.
    expect(second.headers['request-id']).toMatch(/^req_/);
    expect(second.headers['request-id']).not.toBe(first.headers['request-id']);

    // The same JSON with its keys in another order is the same request.
    const reordered = await createCandidate(h.org.keys.secret_test, { name: body.name, email: body.email }, key);
    expect(reordered.statusCode).toBe(201);
    expect(reordered.headers['idempotent-replay']).toBe('true');
    expect(reordered.body).toBe(first.body);

    const rows = await candidateRows(body.email);
    expect(rows).toHaveLength(1);
    expect(rows[0].id).toBe(first.json().id);
    const stored = await storedKeys(key);
    expect(stored).toHaveLength(1);
    expect(stored[0].state).toBe('completed');
    expect(stored[0].response_status).toBe(201);
  });

  it('answers 409 idempotency_key_reuse for the same key with another body or another operation', async () => {
    const key = newKey();
    const body = { email: newEmail(), name: 'Grace Hopper' };
    const first = await createCandidate(h.org.keys.secret_test, body, key);
    expect(first.statusCode).toBe(201);

    const other = await createCandidate(h.org.keys.secret_test, { ...body, name: 'Grace B. Hopper' }, key);
    expectIdempotencyError(other, 409, 'idempotency_key_reuse');
    expect(other.headers['idempotent-replay']).toBeUndefined();

    // The key belongs to the organisation and environment, not to one route.
    const otherRoute = await h.app.inject({
      method: 'POST', url: '/v1/api-keys', headers: bearer(h.org.keys.secret_test, { 'idempotency-key': key }), payload: { name: 'x' },
    });
    expectIdempotencyError(otherRoute, 409, 'idempotency_key_reuse');

    expect(await candidateRows(body.email)).toHaveLength(1);
    const keys = await h.db.kysely.selectFrom('api_keys').select('id').where('organization_id', '=', h.org.id).where('name', '=', 'x').execute();
    expect(keys).toHaveLength(0);
    // The original is still replayed afterwards.
    const again = await createCandidate(h.org.keys.secret_test, body, key);
    expect(again.headers['idempotent-replay']).toBe('true');
    expect(again.body).toBe(first.body);
  });

  it('does not store a failed call: the key can be used again with a corrected body', async () => {
    const taken = newEmail();
    expect((await createCandidate(h.org.keys.secret_test, { email: taken, name: 'First' })).statusCode).toBe(201);

    // A failure in the handler (email taken) releases the key.
    const key = newKey();
    const failed = await createCandidate(h.org.keys.secret_test, { email: taken, name: 'Second' }, key);
    expect(failed.statusCode).toBe(400);
    expect(failed.json().error.code).toBe('candidate_email_taken');
    expect(await storedKeys(key)).toHaveLength(0);
    // Retrying the very same failing call runs it again (no stored failure is replayed).
    const failedAgain = await createCandidate(h.org.keys.secret_test, { email: taken, name: 'Second' }, key);
    expect(failedAgain.statusCode).toBe(400);
    expect(failedAgain.headers['idempotent-replay']).toBeUndefined();

    const fixedEmail = newEmail();
    const fixed = await createCandidate(h.org.keys.secret_test, { email: fixedEmail, name: 'Second' }, key);
    expect(fixed.statusCode).toBe(201);
    expect(fixed.headers['idempotent-replay']).toBeUndefined();
    expect(fixed.json().email).toBe(fixedEmail);
    expect(await candidateRows(fixedEmail)).toHaveLength(1);

    // A validation failure does not keep the key either.
    const key2 = newKey();
    const invalid = await createCandidate(h.org.keys.secret_test, { email: 'not-an-email', name: 'Third' }, key2);
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().error.code).toBe('parameter_invalid');
    expect(await storedKeys(key2)).toHaveLength(0);
    const valid = await createCandidate(h.org.keys.secret_test, { email: newEmail(), name: 'Third' }, key2);
    expect(valid.statusCode).toBe(201);
    expect(valid.headers['idempotent-replay']).toBeUndefined();
  });

  it('scopes keys to the organisation and the environment', async () => {
    const orgB = await h.createOrg('Other org');
    const key = newKey();
    const body = { email: newEmail(), name: 'Alan Turing' };

    const aTest = await createCandidate(h.org.keys.secret_test, body, key);
    const bTest = await createCandidate(orgB.keys.secret_test, body, key);
    const aLive = await createCandidate(h.org.keys.secret_live, body, key);
    for (const res of [aTest, bTest, aLive]) {
      expect(res.statusCode).toBe(201);
      expect(res.headers['idempotent-replay']).toBeUndefined();
    }
    expect(new Set([aTest.json().id, bTest.json().id, aLive.json().id]).size).toBe(3);
    expect(aTest.json().livemode).toBe(false);
    expect(aLive.json().livemode).toBe(true);
    expect(await candidateRows(body.email)).toHaveLength(2); // test + live of org A
    expect(await candidateRows(body.email, orgB)).toHaveLength(1);
    expect(await storedKeys(key)).toHaveLength(3);

    // Each scope replays its own response.
    const bAgain = await createCandidate(orgB.keys.secret_test, body, key);
    expect(bAgain.headers['idempotent-replay']).toBe('true');
    expect(bAgain.body).toBe(bTest.body);
    const liveAgain = await createCandidate(h.org.keys.secret_live, body, key);
    expect(liveAgain.body).toBe(aLive.body);
    // And another org's different body under the same key does not disturb org A's record.
    const bOther = await createCandidate(orgB.keys.secret_test, { ...body, name: 'Someone else' }, key);
    expectIdempotencyError(bOther, 409, 'idempotency_key_reuse');
    expect((await createCandidate(h.org.keys.secret_test, body, key)).body).toBe(aTest.body);
  });

  it('remembers a key for 24 hours, then treats it as new', async () => {
    const key = newKey();
    const body = { email: newEmail(), name: 'Edsger Dijkstra' };
    const first = await createCandidate(h.org.keys.secret_test, body, key);
    expect(first.statusCode).toBe(201);

    h.clock.advance(IDEMPOTENCY_TTL_MS - 1000);
    const late = await createCandidate(h.org.keys.secret_test, body, key);
    expect(late.headers['idempotent-replay']).toBe('true');
    expect(late.body).toBe(first.body);
    expectIdempotencyError(await createCandidate(h.org.keys.secret_test, { email: newEmail(), name: 'X' }, key), 409, 'idempotency_key_reuse');

    h.clock.advance(2000); // 24 h + 1 s after the first call
    const email = newEmail();
    const fresh = await createCandidate(h.org.keys.secret_test, { email, name: 'New person' }, key);
    expect(fresh.statusCode).toBe(201);
    expect(fresh.headers['idempotent-replay']).toBeUndefined();
    expect(fresh.json().id).not.toBe(first.json().id);
    expect(await candidateRows(email)).toHaveLength(1);
  });

  it('refuses an invalid key with 400 idempotency_key_invalid and creates nothing', async () => {
    const email = newEmail();
    for (const bad of ['k'.repeat(256), 'has\ttab', 'caf\u00e9', 'with space']) {
      const res = await createCandidate(h.org.keys.secret_test, { email, name: 'Bad key' }, bad);
      expectIdempotencyError(res, 400, 'idempotency_key_invalid');
      expect(res.json().error.param).toBe('Idempotency-Key');
    }
    expect(await candidateRows(email)).toHaveLength(0);

    // 255 printable characters is the longest valid key.
    const longest = `${'k'.repeat(254)}!`;
    const ok = await createCandidate(h.org.keys.secret_test, { email, name: 'Long key' }, longest);
    expect(ok.statusCode).toBe(201);
    expect((await createCandidate(h.org.keys.secret_test, { email, name: 'Long key' }, longest)).headers['idempotent-replay']).toBe('true');
  });

  it('answers 409 idempotency_in_progress while the first call is in flight, then replays it', async () => {
    resetSlow();
    const key = newKey();
    const first = slowCreate(h.org.keys.secret_test, 'one', key);
    await slow.entered.promise;

    const racing = await slowCreate(h.org.keys.secret_test, 'one', key);
    expectIdempotencyError(racing, 409, 'idempotency_in_progress');
    expect(racing.headers['retry-after']).toBe('1');
    // A different body under the in-flight key is a reuse, not a wait.
    expectIdempotencyError(await slowCreate(h.org.keys.secret_test, 'two', key), 409, 'idempotency_key_reuse');
    expect(slow.executions).toBe(1);

    slow.gate.resolve();
    const done = await first;
    expect(done.statusCode).toBe(201);
    expect(done.headers['idempotent-replay']).toBeUndefined();
    expect(done.json()).toMatchObject({ label: 'one', execution: 1 });

    const replay = await slowCreate(h.org.keys.secret_test, 'one', key);
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replay']).toBe('true');
    expect(replay.body).toBe(done.body);
    expect(slow.executions).toBe(1);
  });

  it('takes over a claim whose process died (older than the lock time)', async () => {
    const key = newKey();
    const now = h.clock.now();
    // A claim left behind by a process that died mid-request: still inside its lock, then past it.
    await h.db.kysely.insertInto('idempotency_keys').values({
      organization_id: h.org.id, livemode: 0, key, request_hash: 'left-by-a-dead-process', state: 'in_progress',
      response_status: null, response_body: null, response_content_type: null, created_at: now, locked_until: now + IDEMPOTENCY_LOCK_MS,
    }).execute();
    const body = { email: newEmail(), name: 'Barbara Liskov' };
    // Inside its lock the claim still stands (a different request hash: reuse).
    expectIdempotencyError(await createCandidate(h.org.keys.secret_test, body, key), 409, 'idempotency_key_reuse');
    expect(await candidateRows(body.email)).toHaveLength(0);

    h.clock.advance(IDEMPOTENCY_LOCK_MS + 1);
    const taken = await createCandidate(h.org.keys.secret_test, body, key);
    expect(taken.statusCode).toBe(201);
    expect(taken.headers['idempotent-replay']).toBeUndefined();
    expect(await candidateRows(body.email)).toHaveLength(1);
    const stored = await storedKeys(key);
    expect(stored).toHaveLength(1);
    expect(stored[0].state).toBe('completed');
    expect((await createCandidate(h.org.keys.secret_test, body, key)).body).toBe(taken.body);
  });

  it('lets a retry take over a request that is stuck past the lock time', async () => {
    resetSlow();
    const key = newKey();
    const stuck = slowCreate(h.org.keys.secret_test, 'stuck', key);
    await slow.entered.promise;
    expectIdempotencyError(await slowCreate(h.org.keys.secret_test, 'stuck', key), 409, 'idempotency_in_progress');

    h.clock.advance(IDEMPOTENCY_LOCK_MS + 1);
    const stuckGate = slow.gate;
    slow.entered = deferred();
    slow.gate = deferred();
    const retry = slowCreate(h.org.keys.secret_test, 'stuck', key);
    await slow.entered.promise; // the retry got the claim and runs the handler
    expect(slow.executions).toBe(2);
    slow.gate.resolve();
    const retried = await retry;
    expect(retried.statusCode).toBe(201);
    expect(retried.json().execution).toBe(2);

    // The old request finishing late must not overwrite the response the retry stored.
    stuckGate.resolve();
    expect((await stuck).statusCode).toBe(201);
    const replay = await slowCreate(h.org.keys.secret_test, 'stuck', key);
    expect(replay.headers['idempotent-replay']).toBe('true');
    expect(replay.body).toBe(retried.body);
  });

  it('does not let a request that fails after losing its claim release the claim of the retry', async () => {
    resetSlow();
    const key = newKey();
    const stuck = slowCreate(h.org.keys.secret_test, 'fail-first', key);
    await slow.entered.promise;
    h.clock.advance(IDEMPOTENCY_LOCK_MS + 1);
    const stuckGate = slow.gate;
    slow.entered = deferred();
    const retryGate = (slow.gate = deferred());
    const retry = slowCreate(h.org.keys.secret_test, 'fail-first', key);
    await slow.entered.promise;

    stuckGate.resolve();
    expect((await stuck).statusCode).toBe(400); // the first execution fails late
    // The retry still holds the key (were it released, this request would run at once).
    slow.gate = deferred();
    slow.gate.resolve();
    expectIdempotencyError(await slowCreate(h.org.keys.secret_test, 'fail-first', key), 409, 'idempotency_in_progress');
    expect(slow.executions).toBe(2);

    retryGate.resolve();
    const retried = await retry;
    expect(retried.statusCode).toBe(201);
    const replay = await slowCreate(h.org.keys.secret_test, 'fail-first', key);
    expect(replay.headers['idempotent-replay']).toBe('true');
    expect(replay.body).toBe(retried.body);
  });
});

describe('Idempotent responses that carry a secret', () => {
  it('replays a new API key verbatim but stores the remembered response encrypted', async () => {
    const key = newKey();
    const send = () => h.app.inject({ method: 'POST', url: '/v1/api-keys', headers: bearer(h.org.keys.secret_test, { 'idempotency-key': key }), payload: { name: 'sealed' } });
    const first = await send();
    expect(first.statusCode).toBe(201);
    const secret = first.json().secret as string;
    const replay = await send();
    expect(replay.headers['idempotent-replay']).toBe('true');
    expect(replay.body).toBe(first.body);
    const [row] = await storedKeys(key);
    expect(row.response_body).toMatch(/^sealed:v1\./);
    expect(row.response_body).not.toContain(secret);
    expect(row.response_body).not.toContain(secret.slice(12));
  });
});

describe('Idempotency across server processes sharing one database', () => {
  let servers: ServeProcess[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 2; i++) servers.push(await startServe({ ...h.env, PREP_LOG_LEVEL: 'silent' }));
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    servers = [];
  });

  it('runs a create once when the same key races across two processes', async () => {
    const key = newKey();
    const body = JSON.stringify({ email: newEmail(), name: 'Two Processes' });
    const send = (server: ServeProcess) => fetch(`${server.url}/v1/candidates`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.org.keys.secret_test}`, 'content-type': 'application/json', 'idempotency-key': key },
      body,
    }).then(async (res) => ({ status: res.status, replay: res.headers.get('idempotent-replay'), text: await res.text() }));

    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => send(servers[i % 2])));

    const rows = await candidateRows(JSON.parse(body).email);
    expect(rows).toHaveLength(1);
    const originals = results.filter((r) => r.status === 201 && r.replay === null);
    expect(originals).toHaveLength(1);
    const original = originals[0].text;
    expect(JSON.parse(original).id).toBe(rows[0].id);
    for (const r of results) {
      if (r.status === 201) {
        expect(r.text).toBe(original);
        if (r.replay !== null) expect(r.replay).toBe('true');
      } else {
        expect(r.status).toBe(409);
        expect(JSON.parse(r.text).error.code).toBe('idempotency_in_progress');
      }
    }
    // Once settled, both processes replay the stored response.
    for (const server of servers) {
      const again = await send(server);
      expect(again).toEqual({ status: 201, replay: 'true', text: original });
    }
  });
});

describe('a create naming a candidate erased while it runs', () => {
  // Was a bug: an erasure forgets the remembered responses naming the candidate, but a response still being made was
  // stored after it (a resume registration racing the erasure kept the parsed resume replayable for 24 hours).
  it('is answered, but not remembered: a retry runs again', async () => {
    resetSlow();
    const candidate = (await createCandidate(h.org.keys.secret_test, { email: newEmail(), name: 'Zebulon Erased' })).json();
    const idempotencyKey = newKey();
    const first = h.app.inject({ method: 'POST', url: '/v1/test/slow-named-create', headers: bearer(h.org.keys.secret_test, { 'idempotency-key': idempotencyKey }), payload: { candidate_id: candidate.id } });
    await slow.entered.promise;
    const erased = await h.app.inject({ method: 'DELETE', url: `/v1/candidates/${candidate.id}`, headers: bearer(h.org.keys.secret_test) });
    expect(erased.statusCode, erased.body).toBe(200);
    slow.gate.resolve();
    expect((await first).statusCode).toBe(201);
    expect(await storedKeys(idempotencyKey)).toEqual([]);
    const again = await slowCreate(h.org.keys.secret_test, 'unused', idempotencyKey).catch(() => null);
    expect(again?.headers['idempotent-replay']).toBeUndefined();
  });

  it('is remembered when the candidate is still there', async () => {
    resetSlow();
    slow.gate.resolve();
    const candidate = (await createCandidate(h.org.keys.secret_test, { email: newEmail(), name: 'Ada Kept' })).json();
    const idempotencyKey = newKey();
    const send = () => h.app.inject({ method: 'POST', url: '/v1/test/slow-named-create', headers: bearer(h.org.keys.secret_test, { 'idempotency-key': idempotencyKey }), payload: { candidate_id: candidate.id } });
    const first = await send();
    const replay = await send();
    expect(replay.headers['idempotent-replay']).toBe('true');
    expect(replay.json()).toEqual(first.json());
    expect(slow.executions).toBe(1);
  });
});
