import { describe, expect, it } from 'vitest';
import { parseResume } from '../../src/modules/resumes/parse/index.js';

const AS_OF = '2026-11';
const body = [
  'jordan@example.com | +1 415 555 0100',
  '',
  'EXPERIENCE',
  'Data Analyst, Acme Foods\tJan 2019 - Present',
  '- Built SQL reports in Tableau for 40 store managers and cut reporting time by half.',
  '- Trained the team of analysts to run the weekly reports themselves, saving hours every week.',
].join('\n');

describe('names in scripts without capital letters (a review)', () => {
  it.each([
    ['Arabic', 'محمد عبد الله'],
    ['Hebrew', 'נועה כהן'],
    ['Devanagari, with vowel signs', 'राहुल शर्मा'],
    ['Hangul, spaced', '김 민준'],
    ['Japanese katakana with a middle dot', 'マイケル・ジョーダン スミス'],
    ['Latin with the name in Han after it', 'Wei Wang 王伟'],
  ])('%s: the name line is read as the name', async (_script, name) => {
    const { parsed } = await parseResume(Buffer.from(`${name}\n${body}`), { asOf: AS_OF });
    expect(parsed.name).toBe(name);
    expect(parsed.experience[0].company).toBe('Acme Foods');
  });
});
