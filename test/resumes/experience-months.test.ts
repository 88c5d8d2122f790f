import { describe, expect, it } from 'vitest';
import { parseResume } from '../../src/modules/resumes/parse/index.js';
import { scoreResume } from '../../src/modules/resumes/scoring/index.js';

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

describe('a role dated by one year alone runs through that year, as "2019 – 2019" does (a review)', () => {
  it('"Analyst, Acme 2019" is January to December 2019: twelve months, not one', async () => {
    const { parsed } = await parseResume(resume(['Analyst, Acme Foods 2019']), { asOf: '2026-11' });
    expect(parsed.experience.map((e) => [e.start, e.end, e.current])).toEqual([['2019-01', '2019-12', false]]);
    expect(parsed.total_experience_months).toBe(12);
    const range = await parseResume(resume(['Analyst, Acme Foods\t2019 – 2019']), { asOf: '2026-11' });
    expect(range.parsed.experience.map((e) => [e.start, e.end])).toEqual([['2019-01', '2019-12']]);
  });

  it('it ends when a later role starts that year (no false overlap), and no later than the current month', async () => {
    const { parsed } = await parseResume(resume(['Senior Analyst, Beta Mart\tJun 2019 – Present', 'Analyst, Acme Foods\t2019']), { asOf: '2026-11' });
    expect(parsed.experience.map((e) => [e.start, e.end])).toEqual([['2019-06', null], ['2019-01', '2019-06']]);
    expect(parsed.total_experience_months).toBe(95);
    const thisYear = await parseResume(resume(['Analyst, Acme Foods\t2026']), { asOf: '2026-11' });
    expect(thisYear.parsed.total_experience_months).toBe(11);
  });

  it('two roles of one year each, one after the other, leave no gap between them', async () => {
    const result = await parseResume(resume(['Analyst, Beta Mart\t2020', 'Junior Analyst, Acme Foods\t2019']), { asOf: '2026-11' });
    expect(result.parsed.total_experience_months).toBe(24);
    expect(scoreResume(result, null, { asOf: '2026-11' }).quality.date_consistency.notes.join(' ')).not.toMatch(/gap of/);
  });

  it('a month alone is still that one month', async () => {
    const { parsed } = await parseResume(resume(['Analyst, Acme Foods\tMar 2019']), { asOf: '2026-11' });
    expect(parsed.experience.map((e) => [e.start, e.end])).toEqual([['2019-03', '2019-03']]);
    expect(parsed.total_experience_months).toBe(1);
  });
});

it('a role of one year alone below a role begun that same year ("2019 – Present") makes no year of overlap (a review)', async () => {
  const result = await parseResume(resume(['Senior Analyst, Beta Mart\t2019 – Present', 'Analyst, Acme Foods\t2019']), { asOf: '2026-11' });
  expect(result.parsed.experience.map((e) => [e.start, e.end])).toEqual([['2019-01', null], ['2019-01', '2019-01']]);
  expect(scoreResume(result, null, { asOf: '2026-11' }).quality.date_consistency.notes.join(' ')).not.toMatch(/overlapping full-time roles from/);
});
