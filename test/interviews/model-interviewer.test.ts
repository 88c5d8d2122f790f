import { describe, expect, it } from 'vitest';
import { createModel } from '../../src/ai/model.js';
import type { InterviewerMove, InterviewSetup } from '../../src/modules/interviews/interviewer/types.js';
import { phraseWithModel } from '../../src/modules/interviews/model-interviewer.js';
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
    expect((await phrase('That sounds tough. So how did things end up?')).text).toBe('That sounds tough. So how did things end up?');
    expect((await phrase('Walk me through how it turned out in the end and what changed as a result.')).text)
      .toBe('Walk me through how it turned out in the end and what changed as a result.');
    // A move that asks nothing (a goodbye) is not given a question.
    const bye = { text: 'Thank you for your time today. Take care!', reason: 'close:end', questionPosition: null } as InterviewerMove;
    expect((await phrase('Thanks so much for your time, take care', bye)).text).toBe('Thanks so much for your time, take care');
  });
});
