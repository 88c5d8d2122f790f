import { describe, expect, it } from 'vitest';
import { createModel } from '../../src/ai/model.js';
import type { InterviewerMove, InterviewSetup } from '../../src/modules/interviews/interviewer/types.js';
import { asksQuestion, phraseWithModel } from '../../src/modules/interviews/model-interviewer.js';
import { startFakeModel } from '../helpers/fake-model.js';

const setup: InterviewSetup = {
  style: 'behavioral', roundName: 'Behavioral Interview', role: 'Engineer', difficulty: 3, candidateName: null, resume: null, durationMs: 1_800_000,
  plan: [{ position: 0, source: 'bank', questionId: null, title: 'Conflict', prompt: 'Tell me about a conflict.', keyPoints: [], followUps: [], minutes: 10, problem: null }],
};
const move = { text: 'Thanks. How did it turn out in the end, and what changed as a result?', reason: 'probe:star:result', questionPosition: 0 } as InterviewerMove;

/** The model's wording of `move` when the model answers `reply`, and what was streamed to the candidate. */
async function phrase(reply: string, m: InterviewerMove = move) {
  const fake = await startFakeModel(() => reply);
  try {
    const model = createModel({ baseUrl: fake.env.PREP_MODEL_BASE_URL, name: 'reviewer-1', apiKey: null, timeoutMs: 10_000, concurrency: 1 })!;
    let shown = '';
    const text = await phraseWithModel(model, setup, [], m, (piece) => { shown += piece; });
    return { text, shown };
  } finally {
    await fake.close();
  }
}

describe('the model interviewer asks the move\'s question', () => {
  // Was a bug: nothing checked that the model's turn asked the question the move was for: "Thanks for sharing that,
  // it sounds like a tough situation." was stored as the probe, and the candidate was left with nothing to answer.
  it('adds the move\'s question when the model\'s wording dropped it', async () => {
    const { text, shown } = await phrase('Thanks for sharing that, it sounds like a tough situation');
    expect(text).toBe('Thanks for sharing that, it sounds like a tough situation. How did it turn out in the end, and what changed as a result?');
    expect(shown.trim()).toBe(text);
  });

  it('keeps the model\'s wording when it asks a question, or words the question without a question mark', async () => {
    expect((await phrase('That sounds tough. So how did it end, and what changed?')).text).toBe('That sounds tough. So how did it end, and what changed?');
    expect((await phrase('Walk me through how it turned out in the end and what changed as a result.')).text)
      .toBe('Walk me through how it turned out in the end and what changed as a result.');
    // A move that asks nothing (a goodbye) is not given a question.
    const bye = { text: 'Thank you for your time today. Take care!', reason: 'close:end', questionPosition: null } as InterviewerMove;
    expect((await phrase('Thanks so much for your time, take care', bye)).text).toBe('Thanks so much for your time, take care');
  });
});

describe('a model\'s question counts only when it is about the move\'s question', () => {
  const shard = 'How would you shard the orders table when one merchant has 40% of the traffic?';

  // Was a bug: any question mark counted as asking the move's question, so a turn that only checked in ("Great, thanks!
  // Ready for the next one?") was stored as the question: the candidate was never asked it, and the report graded it.
  it('does not take a generic check-in for the question', () => {
    for (const reply of [
      'Great, thanks! Ready for the next one?',
      'Does that make sense?',
      'Okay. Shall we move on?',
      'Any questions before we continue?',
      'How are you feeling so far?',
      // An acknowledgement that echoes the question's words, then a check-in: the question is still not put.
      'Good point about the orders table and that merchant. Sound good?',
      'Thanks for explaining how you would shard the orders table for that merchant. Shall we move on?',
    ]) expect(asksQuestion(reply, shard), reply).toBe(false);
    expect(asksQuestion('Linear time is clean. Shall we move on?', 'What\'s the time and space complexity of that?')).toBe(false);
    expect(asksQuestion('It\'s great that you learned to measure first. Ready for the next one?', 'What did you learn from that?')).toBe(false);
    // Pacing words are not the question's content: "move on" does not ask what the candidate would change.
    expect(asksQuestion('Nice work. Shall we move on?', 'Is there anything you\'d change before we move on?')).toBe(false);
  });

  it('takes a faithful paraphrase: reordered, a lead-in added, a minority of its words said otherwise', () => {
    for (const reply of [
      shard,
      'If one merchant drives 40% of the traffic, how would you partition the orders table?',
      'Great answer. So, thinking about scale: one merchant accounts for 40% of all traffic. How would you go about sharding the orders table?',
      'How would you split the orders table across shards when a single merchant generates 40 percent of requests?',
      'Nice. Now, how would you shard orders if a single merchant has 40% of the load?',
      // Asked, then a check-in: the question is there.
      `${shard} Does that make sense?`,
      // A request with no question mark, as before; or with a check-in after it.
      'Walk me through sharding the orders table when one merchant has 40% of the traffic.',
      'I’d like to hear how you would shard the orders table when one merchant has 40% of the traffic. Ready?',
      'Okay, walk me through sharding the orders table when one merchant has 40% of the traffic. Does that make sense?',
      // The set-up in a sentence of its own.
      'Let\'s talk about the orders table. How would you shard it?',
      'Imagine one merchant has 40% of the traffic. How would you shard the data?',
    ]) expect(asksQuestion(reply, shard), reply).toBe(true);
    expect(asksQuestion('What would the big-O be, in time and memory?', 'What\'s the time and space complexity of that?')).toBe(true);
    expect(asksQuestion('Anything you would change before we move on?', 'Is there anything you\'d change before we move on?')).toBe(true);
    expect(asksQuestion('What was the main lesson you learned?', 'What did you learn from that?')).toBe(true);
  });

  it('takes any one of a move\'s questions in a row, and any question mark only for a question with no content words', () => {
    const result = 'How did it turn out? Was there anything you could measure, like time saved or problems avoided?';
    expect(asksQuestion('So how did it all turn out?', result)).toBe(true);
    expect(asksQuestion('Could you measure anything, such as time saved?', result)).toBe(true);
    expect(asksQuestion('Does that make sense?', result)).toBe(false);
    // "Why this one?" has no content words: the question in a row before it is what must be asked.
    expect(asksQuestion('Ready for the next one?', 'Did you consider any alternatives? Why this one?')).toBe(false);
    expect(asksQuestion('Were there other alternatives you weighed?', 'Did you consider any alternatives? Why this one?')).toBe(true);
    expect(asksQuestion('Okay, and why?', 'Why?')).toBe(true);
  });

  it('adds the question after a check-in, once, streamed as the rest and stored whole', async () => {
    const probe = { text: 'Thanks. How would you shard the orders table when one merchant has 40% of the traffic?', reason: 'probe:data', questionPosition: 0 } as InterviewerMove;
    const { text, shown } = await phrase('Great, thanks! Ready for the next one?', probe);
    expect(text).toBe('Great, thanks! Ready for the next one? How would you shard the orders table when one merchant has 40% of the traffic?');
    expect(shown).toBe(text);
    // A move of two questions in a row has both added ("Why this one?" alone would mean nothing).
    const alternatives = { text: 'Did you consider any alternatives? Why this one?', reason: 'probe:alternatives', questionPosition: 0 } as InterviewerMove;
    expect((await phrase('Got it, thanks. Does that make sense?', alternatives)).text)
      .toBe('Got it, thanks. Does that make sense? Did you consider any alternatives? Why this one?');
    // A paraphrase is kept as the model said it: nothing is added.
    expect((await phrase('Nice. If one merchant drives 40% of the traffic, how would you partition the orders table?', probe)).text)
      .toBe('Nice. If one merchant drives 40% of the traffic, how would you partition the orders table?');
  });
});
