import { describe, expect, it } from 'vitest';
import type { TextModel } from '../../src/ai/model.js';
import { methodFor } from '../../src/modules/interviews/interviewer/method.js';
import type { Turn } from '../../src/modules/interviews/interviewer/types.js';
import { assessWithModel } from '../../src/modules/interviews/model-assessment.js';

/** A model whose whole reply is `text`. */
const replying = (text: string): TextModel => ({
  id: 'fake', complete: async () => ({ text, inputTokens: null, outputTokens: null, latencyMs: 1 }),
  generate: async () => text, stream: async () => { throw new Error('unused'); },
});

const turns: Turn[] = [
  { seq: 1, speaker: 'interviewer', kind: 'text', text: 'Tell me about a time you fixed something.', questionPosition: 0, atMs: 0, code: null },
  { seq: 2, speaker: 'candidate', kind: 'text', text: 'I rebuilt our on-call rotation and pages fell by half.', questionPosition: 0, atMs: 1000, code: null },
];

describe('review: the model assessment reads whatever JSON the model returns', () => {
  it('treats a reply of JSON null as unavailable rather than throwing (processing would fail and retry forever)', async () => {
    const method = methodFor('behavioral');
    await expect(assessWithModel(replying('null'), method, turns)).resolves.toMatchObject({ status: 'unavailable' });
  });

  it('does not keep two ratings for the same competency', async () => {
    const method = methodFor('behavioral');
    const slug = method.competencies[0].slug;
    const reply = JSON.stringify({ summary: 's', competencies: [{ slug, rating: 5, rationale: 'a', evidence: [] }, { slug, rating: 1, rationale: 'b', evidence: [] }] });
    const result = await assessWithModel(replying(reply), method, turns);
    expect(result.status).toBe('assessed');
    if (result.status === 'assessed') expect(result.competencies.filter((c) => c.slug === slug)).toHaveLength(1);
  });
});
