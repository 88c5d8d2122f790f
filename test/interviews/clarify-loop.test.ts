import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { initialState, openInterview, respond } from '../../src/modules/interviews/interviewer/interviewer.js';
import type { InterviewerMove, InterviewerState, InterviewSetup, Turn } from '../../src/modules/interviews/interviewer/types.js';

type BankQuestion = { slug: string; title: string; prompt: string; guidance: { key_points: string[]; follow_ups: string[] } };
const bank = JSON.parse(readFileSync(new URL('../../catalog/question-bank/questions/sql-data.json', import.meta.url), 'utf8')) as BankQuestion[];
const slugs = ['vet-clinic-monthly-appointment-outcomes-per-vet', 'library-members-never-borrowed-not-in-null-trap'];
const setup: InterviewSetup = {
  style: 'technical', roundName: 'SQL & Data', role: 'Backend Engineer', difficulty: 3, candidateName: 'Maya',
  resume: { name: 'Maya', titles: [], companies: [], skills: [] }, durationMs: 60 * 60_000,
  plan: slugs.map((s, i) => { const q = bank.find((b) => b.slug === s)!; return { position: i, source: 'bank', questionId: s, title: q.title, prompt: q.prompt, keyPoints: q.guidance.key_points, followUps: q.guidance.follow_ups, minutes: 5, problem: null }; }),
};

function play(says: string[], stepMs: number) {
  const turns: Turn[] = [];
  const moves: InterviewerMove[] = [];
  let t = 10_000;
  let state: InterviewerState = initialState();
  const add = (speaker: Turn['speaker'], text: string, pos: number | null) => turns.push({ seq: turns.length + 1, speaker, kind: 'text', text, questionPosition: pos, atMs: t, code: null });
  const take = (m: InterviewerMove) => { moves.push(m); state = m.state; add('interviewer', m.text, m.questionPosition); };
  take(openInterview(setup, t));
  for (const say of says) {
    t += stepMs;
    add('candidate', say, state.phase === 'question' ? state.index : null);
    take(respond(setup, state, turns, say, t));
  }
  return moves;
}

describe('clarifying questions and the question time budget (a review)', () => {
  // interviewer.ts says "the question's time budget bounds them", but the clarify branch returns before the
  // `elapsedMs - askedAtMs >= q.minutes` check: a 5-minute question is held for 30+ minutes by questions back.
  it('moves on once the question\'s time is spent, even when the candidate keeps asking back', () => {
    const moves = play(Array.from({ length: 12 }, (_, i) => `Can I assume the table has ${i + 2} columns?`), 3 * 60_000);
    // 36 minutes pass on a 5-minute question
    expect(moves.at(-1)!.state.index).toBeGreaterThan(0);
  });

  // A genuine (short) answer that opens with a lead-in and "when" and ends in a check-back is taken for a question back.
  it('a short genuine answer ending in a check-back is not answered as a clarification', () => {
    const moves = play(['Yeah, when I did this before I grouped by vet id and month with a left join so vets with no visits still show. Is that the kind of thing you mean?'], 60_000);
    expect(moves.at(-1)!.reason).not.toBe('clarify');
  });
});
