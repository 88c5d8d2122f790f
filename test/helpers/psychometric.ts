import { expect } from 'vitest';
import type { Harness } from './harness.js';
import { testClient } from './client.js';

/** Calls and fixtures for psychometric sessions: assign, mint a token, start, answer, submit. */
export function psychometricKit(h: Harness) {
  const client = testClient(h);
  const { call } = client;
  const kit = {
    call,
    async testId(key: string, slug: string): Promise<string> {
      const list = await call('GET', '/v1/psychometric-tests?limit=100', { key });
      expect(list.status, list.raw).toBe(200);
      const test = list.body.data.find((t: any) => t.slug === slug);
      expect(test, slug).toBeDefined();
      return test.id;
    },
    /** A candidate, an assignment of `slug`, a token; started unless told not to. */
    async session(key: string, slug: string, options: { start?: boolean; language?: string } = {}) {
      const candidateId = await client.candidate(key, { name: 'Grace Hopper' });
      const assigned = await client.assign(key, 'psychometric', await kit.testId(key, slug), candidateId, options.language ? { language: options.language } : {});
      const token = await client.token(key, 'psychometric', assigned.id);
      let items: Array<{ id: string; text: string }> = [];
      if (options.start !== false) {
        const started = await call('POST', `/v1/psychometric-sessions/${assigned.id}/start`, { token });
        expect(started.status, started.raw).toBe(200);
        items = started.body.items;
      }
      return { id: assigned.id as string, candidateId, token, items };
    },
    /** Saves every answer (in pages of `page`) and submits; `answer(itemId, position)` gives each value. */
    async answerAll(s: { id: string; token: string; items: Array<{ id: string }> }, answer: (itemId: string, i: number) => number, page = 10) {
      for (let i = 0; i < s.items.length; i += page) {
        const answers = s.items.slice(i, i + page).map((item, j) => ({ item_id: item.id, value: answer(item.id, i + j) }));
        const res = await call('POST', `/v1/psychometric-sessions/${s.id}/progress`, { token: s.token, body: { answers } });
        expect(res.status, res.raw).toBe(200);
      }
      const submitted = await call('POST', `/v1/psychometric-sessions/${s.id}/submit`, { token: s.token });
      expect(submitted.status, submitted.raw).toBe(200);
      return submitted.body;
    },
  };
  return kit;
}
