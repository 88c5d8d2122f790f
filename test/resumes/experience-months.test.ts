import { describe, expect, it } from 'vitest';
import { parseResume } from '../../src/modules/resumes/parse/index.js';

const resume = (roles: string[]) => Buffer.from([
  'Jordan Example',
  'jordan@example.com | +1 415 555 0100',
  '',
  'EXPERIENCE',
  ...roles.flatMap((r) => [r, '- Built SQL reports in Tableau for 40 store managers and cut reporting time by half.']),
].join('\n'));

describe('total_experience_months counts up to the current month (a review)', () => {
  it('a role ending after the current month counts to the current month; one starting after it, not at all', async () => {
    const { parsed } = await parseResume(resume([
      'Data Analyst, Acme Foods\tJan 2026 - Dec 2049',
      'Senior Analyst, Future Corp\tMar 2027 - Present',
    ]), { asOf: '2026-11' });
    expect(parsed.experience.map((e) => e.start)).toEqual(['2026-01', '2027-03']);
    expect(parsed.total_experience_months).toBe(11);
  });
});
