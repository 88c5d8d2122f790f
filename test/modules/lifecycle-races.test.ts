import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness, Org } from '../helpers/harness.js';
import { interviewSuite, type InterviewKit } from '../helpers/interviews.js';
import { psychometricKit } from '../helpers/psychometric.js';
import { settleJobs } from '../helpers/settle.js';

let h: Harness;
let kit: InterviewKit;
let org: Org;
const key = () => org.keys.secret_test;
beforeAll(async () => { ({ h, kit, org } = await interviewSuite()); });
afterAll(async () => { await h?.close(); });

const N = 8;
async function eventsOf(id: string) {
  const rows = await h.db.kysely.selectFrom('events').select(['type', 'payload']).where('organization_id', '=', org.id).orderBy('created_at').execute();
  return rows.filter((r) => r.payload.includes(id)).map((r) => r.type);
}
const outcome = (r: { status: number; body: any }) => `${r.status} ${r.body?.status ?? r.body?.error?.code}`;

describe('lifecycle races', () => {
  it('interview: concurrent first joins spend one credit and emit interview.started once', async () => {
    const i = await kit.create(key());
    const token = await kit.token(key(), i.id);
    const replies = await Promise.all(Array.from({ length: N }, () => kit.call('POST', `/v1/interviews/${i.id}/join`, { token })));
    expect(replies.map(outcome)).toEqual(Array(N).fill('200 in_progress'));
    expect((await eventsOf(i.id)).filter((t) => t === 'interview.started')).toHaveLength(1);
  });

  it('interview: join racing cancel: one wins; exactly one of started/cancelled emitted', async () => {
    for (let round = 0; round < 5; round++) {
      const i = await kit.create(key());
      const token = await kit.token(key(), i.id);
      const [join, cancel] = await Promise.all([
        kit.call('POST', `/v1/interviews/${i.id}/join`, { token }),
        kit.call('POST', `/v1/interviews/${i.id}/cancel`, { key: key() }),
      ]);
      const o = `join ${outcome(join)}, cancel ${outcome(cancel)}`;
      expect(['join 200 in_progress, cancel 400 session_already_started', 'join 400 session_cancelled, cancel 200 cancelled']).toContain(o);
      const ev = (await eventsOf(i.id)).filter((t) => t !== 'interview.created');
      expect(ev).toEqual(o.startsWith('join 200') ? ['interview.started'] : ['interview.cancelled']);
    }
  });

  it('interview: concurrent cancels emit interview.cancelled once', async () => {
    const i = await kit.create(key());
    const replies = await Promise.all(Array.from({ length: N }, () => kit.call('POST', `/v1/interviews/${i.id}/cancel`, { key: key() })));
    expect(replies.map(outcome)).toEqual(Array(N).fill('200 cancelled'));
    expect((await eventsOf(i.id)).filter((t) => t === 'interview.cancelled')).toHaveLength(1);
  });

  it('interview: concurrent ends, pauses and joins: ended once, completed once', async () => {
    for (let round = 0; round < 3; round++) {
      const i = await kit.create(key());
      const token = await kit.token(key(), i.id);
      await kit.join(token, i.id);
      const ops = ['end', 'pause', 'join', 'end', 'pause', 'join', 'end'];
      const replies = await Promise.all(ops.map((op) => kit.call('POST', `/v1/interviews/${i.id}/${op}`, { token })));
      expect(replies.filter((r) => r.status >= 500)).toEqual([]);
      for (const [k, r] of replies.entries()) if (ops[k] === 'end') expect(outcome(r)).toBe('200 ended');
      const ev = (await eventsOf(i.id));
      expect(ev.filter((t) => t === 'interview.ended')).toHaveLength(1);
      expect(ev.filter((t) => t === 'interview.completed')).toHaveLength(1);
      const row = await h.db.kysely.selectFrom('interviews').selectAll().where('id', '=', i.id).executeTakeFirstOrThrow();
      expect(row.status).toBe('ended');
      expect(row.running_since).toBeNull();
    }
  });

  it('interview: end racing erasure: ended once', async () => {
    for (let round = 0; round < 3; round++) {
      const cand = await kit.client.candidate(key());
      const i = await kit.create(key(), {}, cand);
      const token = await kit.token(key(), i.id);
      await kit.join(token, i.id);
      const replies = await Promise.all([
        kit.call('POST', `/v1/interviews/${i.id}/end`, { token }),
        kit.call('DELETE', `/v1/candidates/${cand}`, { key: key() }),
        kit.call('POST', `/v1/interviews/${i.id}/pause`, { token }),
      ]);
      expect(replies.filter((r) => r.status >= 500)).toEqual([]);
      const ev = (await eventsOf(i.id));
      expect(ev.filter((t) => t === 'interview.ended')).toHaveLength(1);
    }
  });

  it('psychometric: concurrent submits complete once with one event; all answer 200', async () => {
    const p = psychometricKit(h);
    const s = await p.session(key(), 'mini-ipip');
    for (let i = 0; i < s.items.length; i += 10) {
      await p.call('POST', `/v1/psychometric-sessions/${s.id}/progress`, { token: s.token, body: { answers: s.items.slice(i, i + 10).map((it) => ({ item_id: it.id, value: 3 })) } });
    }
    const replies = await Promise.all(Array.from({ length: N }, () => p.call('POST', `/v1/psychometric-sessions/${s.id}/submit`, { token: s.token })));
    expect(replies.map((r) => r.status)).toEqual(Array(N).fill(200));
    expect((await eventsOf(s.id)).filter((t) => t === 'psychometric.completed')).toHaveLength(1);
  });

  it('psychometric: concurrent starts: one started_at, all 200', async () => {
    const p = psychometricKit(h);
    const s = await p.session(key(), 'mini-ipip', { start: false });
    const replies = await Promise.all(Array.from({ length: N }, () => p.call('POST', `/v1/psychometric-sessions/${s.id}/start`, { token: s.token })));
    expect(replies.map((r) => r.status)).toEqual(Array(N).fill(200));
    expect(new Set(replies.map((r) => r.body.started_at)).size).toBe(1);
    const jobs = await h.db.kysely.selectFrom('background_jobs').select('id').where('kind', '=', 'psychometric.timeout').where('payload', 'like', `%${s.id}%`).execute();
    expect(jobs).toHaveLength(1);
  });

  it('psychometric: submit racing erasure: one psychometric.completed', async () => {
    const p = psychometricKit(h);
    for (let round = 0; round < 3; round++) {
      const s = await p.session(key(), 'mini-ipip');
      for (let i = 0; i < s.items.length; i += 10) {
        await p.call('POST', `/v1/psychometric-sessions/${s.id}/progress`, { token: s.token, body: { answers: s.items.slice(i, i + 10).map((it) => ({ item_id: it.id, value: 3 })) } });
      }
      const replies = await Promise.all([
        p.call('POST', `/v1/psychometric-sessions/${s.id}/submit`, { token: s.token }),
        p.call('DELETE', `/v1/candidates/${s.candidateId}`, { key: key() }),
      ]);
      expect(replies.filter((r) => r.status >= 500)).toEqual([]);
      await settleJobs(h, ['psychometric.complete'], 'completion');
      const ev = (await eventsOf(s.id)).filter((t) => t === 'psychometric.completed');
      expect(ev.length).toBeLessThanOrEqual(1);
    }
  });
});

describe('erasure racing the candidate and the customer', () => {
  for (const op of ['start', 'cancel'] as const) {
    it(`an assignment's ${op} racing DELETE /v1/candidates: neither fails (no deadlock), and no credit is lost`, async () => {
      const p = psychometricKit(h);
      const o = await kit.organization(`Erase vs ${op}`, 100);
      const k = o.keys.secret_test;
      const failures: string[] = [];
      for (let round = 0; round < 6; round++) {
        const s = await p.session(k, 'mini-ipip', { start: false });
        const replies = await Promise.all([
          op === 'start' ? p.call('POST', `/v1/psychometric-sessions/${s.id}/start`, { token: s.token }) : p.call('POST', `/v1/psychometric-sessions/${s.id}/cancel`, { key: k }),
          p.call('DELETE', `/v1/candidates/${s.candidateId}`, { key: k }),
        ]);
        for (const r of replies) if (r.status >= 500) failures.push(r.raw);
      }
      expect(failures).toEqual([]);
      // Every credit back but those of the sessions that started (an erasure closes those as timed out).
      const started = await h.db.kysely.selectFrom('psychometric_sessions').select('id').where('organization_id', '=', o.id)
        .where('status', 'not in', ['assigned', 'cancelled']).execute();
      const usage = await p.call('GET', '/v1/usage', { key: k });
      expect(usage.body.credits.psychometric).toBe(100 - started.length);
    });
  }

  it.each(['psychometric', 'prompt_engineering'] as const)('%s: the abandonment of a lapsed assignment racing DELETE /v1/candidates: neither fails, the credit comes back once', async (kind) => {
    const o = await kit.organization(`Erase vs abandonment ${kind}`, 100);
    const k = o.keys.secret_test;
    const p = psychometricKit(h);
    const testId = kind === 'psychometric' ? await p.testId(k, 'mini-ipip')
      : (await kit.client.ok('GET', '/v1/prompt-engineering-assessments', { key: k }, 200)).data[0].id;
    const table = kind === 'psychometric' ? 'psychometric_sessions' : 'prompt_engineering_sessions';
    const service = kind === 'psychometric' ? h.modules.psychometric : h.modules.promptEngineering;
    const failures: string[] = [];
    const rounds = 6;
    const sessions: Array<{ id: string; candidate: string }> = [];
    for (let round = 0; round < rounds; round++) {
      const candidate = await kit.client.candidate(k);
      sessions.push({ id: (await kit.client.assign(k, kind, testId, candidate)).id, candidate });
    }
    h.clock.advance(7 * 86_400_000 + 1000);
    for (const s of sessions) {
      const [, erased] = await Promise.all([
        service.complete(s.id).catch((error: Error) => failures.push(String(error))),
        kit.call('DELETE', `/v1/candidates/${s.candidate}`, { key: k }),
      ]);
      if (erased.status >= 500) failures.push(erased.raw);
    }
    expect(failures).toEqual([]);
    const left = await h.db.kysely.selectFrom(table).select('id').where('organization_id', '=', o.id).where('candidate_id', 'is not', null).execute();
    expect(left).toEqual([]);
    const usage = await kit.call('GET', '/v1/usage', { key: k });
    expect(usage.body.credits[kind]).toBe(100);
  });
});
