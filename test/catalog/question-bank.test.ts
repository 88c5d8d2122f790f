import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readBank, readTaxonomy, validateQuestions, QuestionFileError, type QuestionFile } from '../../src/modules/question-bank/content.js';

// The question bank itself: every file passes the authoring rules, every coding problem is a question, every
// question has guidance an interviewer can grade against.
const problems = new Set(readdirSync(new URL('../../catalog/coding/problems/', import.meta.url)));
const taxonomy = readTaxonomy();
const bank = readBank(taxonomy, problems);

describe('the question bank catalogue', () => {
  it('holds at least 300 questions over every category, each with a spread of difficulties', () => {
    expect(bank.length).toBeGreaterThanOrEqual(300);
    for (const c of taxonomy.categories) {
      const questions = bank.filter((e) => e.category === c.slug);
      expect(questions.length, c.slug).toBeGreaterThanOrEqual(35);
      for (const d of ['easy', 'medium', 'hard']) expect(questions.some((e) => e.question.difficulty === d), `${c.slug} ${d}`).toBe(true);
    }
  });

  it('has every coding catalogue problem as exactly one coding question, with its title', () => {
    const linked = bank.filter((e) => e.question.problem !== undefined);
    expect(linked.every((e) => e.category === 'coding')).toBe(true);
    expect(linked.map((e) => e.question.problem).sort()).toEqual([...problems].sort());
  });

  it('gives every question guidance: checkable key points and follow-ups', () => {
    for (const { question } of bank) {
      expect(question.guidance.key_points.length, question.slug).toBeGreaterThanOrEqual(3);
      expect(question.guidance.follow_ups.length, question.slug).toBeGreaterThanOrEqual(2);
    }
  });

  it('uses topics from the one taxonomy, and most topics are used', () => {
    const used = new Set(bank.flatMap((e) => e.question.topics));
    expect(used.size / taxonomy.topics.length).toBeGreaterThan(0.8);
  });

  it('refuses a file that breaks a rule, naming the question', () => {
    const good = bank[0]!.question;
    const bad = (patch: Partial<QuestionFile>, category = bank[0]!.category) =>
      () => validateQuestions([{ category, question: { ...good, ...patch } as QuestionFile }], taxonomy, problems, 'test.json');
    expect(bad({})).not.toThrow();
    expect(bad({ topics: ['no-such-topic'] })).toThrow(/unknown topic no-such-topic/);
    expect(bad({ difficulty: 'extreme' as never })).toThrow(QuestionFileError);
    expect(bad({ prompt: 'too short' })).toThrow(/prompt/);
    expect(bad({ guidance: { key_points: ['only one point here'], follow_ups: ['and one follow up'] } })).toThrow(/key_points/);
    expect(bad({ slug: 'Not Kebab' })).toThrow(/slug/);
    expect(bad({}, 'astrology')).toThrow(/unknown category/);
    expect(bad({ problem: 'no-such-problem' }, 'coding')).toThrow(/problem/);
  });
});
