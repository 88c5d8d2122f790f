import { describe, expect, it } from 'vitest';
import { findDateRanges } from '../../src/modules/resumes/parse/dates.js';
import { parseResume } from '../../src/modules/resumes/parse/index.js';
import { scoreResume } from '../../src/modules/resumes/scoring/index.js';

const ranges = (line: string) => findDateRanges(line).map((d) => [d.start, d.end, d.current]);

describe('date ranges written the ways resumes write them (a review)', () => {
  it.each([
    ['Jan 2019 – Till Date', ['2019-01', null, true]],
    ['Jan 2019 - till now', ['2019-01', null, true]],
    ['Jan 2019 to date', ['2019-01', null, true]],
    ["Jan '19 – Mar '21", ['2019-01', '2021-03', false]],
    ['Sept ’98 – Feb ’01', ['1998-09', '2001-02', false]],
    ['2018.03 - 2020.11', ['2018-03', '2020-11', false]],
    ['2018-03-01 – 2020-11-30', ['2018-03', '2020-11', false]],
    ['2018-03-01 to present', ['2018-03', null, true]],
    ['15.03.2018 – 30.11.2020', ['2018-03', '2020-11', false]],
    ['03/15/2018 – 11/30/2020', ['2018-03', '2020-11', false]],
  ])('%s', (line, expected) => {
    expect(ranges(line)).toEqual([expected]);
  });

  it('what was read before still is', () => {
    expect(ranges('03/2018 - 11/2020')).toEqual([['2018-03', '2020-11', false]]);
    expect(ranges('2020-01 – 2021-06')).toEqual([['2020-01', '2021-06', false]]);
    expect(ranges('2019 – 2021')).toEqual([['2019-01', '2021-01', false]]);
    expect(ranges('Joined in 2018. 10 engineers')).toEqual([['2018-01', '2018-01', false]]);
    expect(ranges('May 15 launch')).toEqual([]);
  });

  it('a role "till date" counts to the current month, not as one month', async () => {
    const { parsed } = await parseResume(Buffer.from([
      'Priya Raman',
      'priya@example.com | +91 98765 43210',
      '',
      'EXPERIENCE',
      'Senior Developer, Infosys Technologies\tJan 2024 – Till Date',
      '- Built payment services in Java for 3 banks and cut settlement time by 30 percent.',
      'Developer, Wipro Digital\t2021.03 - 2023.12',
      '- Maintained a Spring Boot platform used by 2 million customers across India.',
    ].join('\n')), { asOf: '2026-11' });
    expect(parsed.experience.map((e) => [e.start, e.end, e.current])).toEqual([['2024-01', null, true], ['2021-03', '2023-12', false]]);
    expect(parsed.total_experience_months).toBe(35 + 34);
  });
});

describe('a range of years alone: the end year is the whole year (a review)', () => {
  const file = (roles: string[]) => Buffer.from([
    'Sam Taylor',
    'sam@example.com | +1 415 555 0100',
    '',
    'EXPERIENCE',
    ...roles.flatMap((r) => [r, '- Built SQL reports in Tableau for 40 store managers and cut reporting time by half.']),
  ].join('\n'));

  it('"2015 – 2018" then "2019 – Present" is no gap, and 2015–2018 is four years', async () => {
    const result = await parseResume(file(['Data Analyst, Acme Foods\t2019 – Present', 'Junior Analyst, Beta Mart\t2015 – 2018']), { asOf: '2026-11' });
    expect(result.parsed.experience.map((e) => [e.start, e.end, e.current])).toEqual([['2019-01', null, true], ['2015-01', '2018-12', false]]);
    expect(result.parsed.total_experience_months).toBe(48 + 95);
    const score = scoreResume(result, null, { asOf: '2026-11' });
    expect(score.quality.date_consistency.notes.join(' ')).not.toMatch(/gap of/);
    expect(score.quality.date_consistency.score).toBe(100);
  });

  it('a year-only end meets the next role begun that year: no false overlap', async () => {
    const result = await parseResume(file(['Data Analyst, Acme Foods\t2018 – Present', 'Junior Analyst, Beta Mart\t2015 – 2018']), { asOf: '2026-11' });
    expect(result.parsed.experience.map((e) => [e.start, e.end])).toEqual([['2018-01', null], ['2015-01', '2018-01']]);
    const score = scoreResume(result, null, { asOf: '2026-11' });
    expect(score.quality.date_consistency.notes.join(' ')).not.toMatch(/overlapping full-time roles from/);
    const later = await parseResume(file(['Data Analyst, Acme Foods\tJun 2018 – Present', 'Junior Analyst, Beta Mart\t2015 – 2018']), { asOf: '2026-11' });
    expect(later.parsed.experience.map((e) => [e.start, e.end])).toEqual([['2018-06', null], ['2015-01', '2018-06']]);
    expect(scoreResume(later, null, { asOf: '2026-11' }).quality.date_consistency.notes.join(' ')).not.toMatch(/roles from|gap of/);
  });

  it('a gap of a whole year between year-only roles is still a gap', async () => {
    const result = await parseResume(file(['Data Analyst, Acme Foods\t2020 – Present', 'Junior Analyst, Beta Mart\t2015 – 2018']), { asOf: '2026-11' });
    expect(scoreResume(result, null, { asOf: '2026-11' }).quality.date_consistency.notes.join(' ')).toMatch(/gap of 12 months/);
  });
});

describe('a season, quarter or half of a year is read as its months, not as a year alone (a review)', () => {
  it.each([
    ['Summer 2019', ['2019-06', '2019-08', false]],
    ['Q3 2019', ['2019-07', '2019-09', false]],
    ['Fall 2018 – Spring 2019', ['2018-09', '2019-05', false]],
    ['Autumn, 2018 – Present', ['2018-09', null, true]],
    ['H2 2020 – Q1 2021', ['2020-07', '2021-03', false]],
  ])('%s', (line, expected) => {
    expect(ranges(line)).toEqual([expected]);
  });

  it('an internship in "Summer 2019" is three months, without the year-only warning', async () => {
    const { parsed } = await parseResume(Buffer.from([
      'Sam Taylor', 'sam@example.com | +1 415 555 0100', '', 'EXPERIENCE',
      'Data Analyst Intern, Acme Foods\tSummer 2019',
      '- Built SQL reports in Tableau for 40 store managers and cut reporting time by half.',
    ].join('\n')), { asOf: '2026-11' });
    expect(parsed.experience.map((e) => [e.start, e.end])).toEqual([['2019-06', '2019-08']]);
    expect(parsed.total_experience_months).toBe(3);
    expect(parsed.warnings.map((w) => w.code)).not.toContain('year_only_date');
  });
});

it('a degree dated by a season alone ends then, with no start (a review)', async () => {
  const { parsed } = await parseResume(Buffer.from([
    'Sam Taylor', 'sam@example.com | +1 415 555 0100', '', 'EXPERIENCE',
    'Data Analyst, Acme Foods\tJan 2020 – Present',
    '- Built SQL reports in Tableau for 40 store managers and cut reporting time by half.', '',
    'EDUCATION', 'BSc Economics, University of Leeds\tSpring 2019',
  ].join('\n')), { asOf: '2026-11' });
  expect(parsed.education.map((e) => [e.start, e.end])).toEqual([[null, '2019-05']]);
});

describe('winter is December to February, the winter that ends in the year written (a review)', () => {
  it.each([
    // Three months like the other seasons, which it meets: Fall 2020 ends in November, Spring 2021 starts in March.
    ['Winter 2021', ['2020-12', '2021-02', false]],
    ['Fall 2020 – Winter 2021', ['2020-09', '2021-02', false]],
    ['Winter 2021 – Spring 2021', ['2020-12', '2021-05', false]],
    ['Winter, 2021 – Present', ['2020-12', null, true]],
    ['Winter 1990', ['1989-12', '1990-02', false]],
    // Both years written: the winter that spans them.
    ['Winter 2020/21', ['2020-12', '2021-02', false]],
    ['Winter 2020-21', ['2020-12', '2021-02', false]],
    ['Winter 2020–21', ['2020-12', '2021-02', false]],
    ['Winter 2020/2021', ['2020-12', '2021-02', false]],
    ['Winter 2020/21 – Summer 2021', ['2020-12', '2021-08', false]],
    // Spaced, it is a range from a winter to a year, as before.
    ['Winter 2019 - 2021', ['2018-12', '2021-01', false]],
  ])('%s', (line, expected) => {
    expect(ranges(line)).toEqual([expected]);
  });

  it.each([
    // Tight with two full years, a winter as "Winter 2020/2021" and "Winter 2020-21" are (was a range from Winter 2020,
    // December 2019, to January 2021, and dropped a "– Present" after it).
    ['Winter 2020-2021', ['2020-12', '2021-02', false]],
    ['Winter 2020–2021', ['2020-12', '2021-02', false]],
    ['Intern\tWinter 2020-2021', ['2020-12', '2021-02', false]],
    ['Winter 2020-2021 – Present', ['2020-12', null, true]],
    // Spaced, or with years that are not one winter's, still a range from a winter to a year.
    ['Winter 2020 - 2021', ['2019-12', '2021-01', false]],
    ['Winter 2020 – 2021', ['2019-12', '2021-01', false]],
    ['Winter 2019-2021', ['2018-12', '2021-01', false]],
  ])('%s (two full years)', (line, expected) => {
    expect(ranges(line)).toEqual([expected]);
  });

  it('two years that are not one winter are no date', () => {
    expect(ranges('Winter 2019/21')).toEqual([]);
    expect(ranges('Winter 2021/20')).toEqual([]);
  });

  it('a "Winter 2021" internship is three months, and a "Fall 2020" one before it leaves no gap', async () => {
    const result = await parseResume(Buffer.from([
      'Sam Taylor', 'sam@example.com | +1 415 555 0100', '', 'EXPERIENCE',
      'Data Analyst Intern, Acme Foods\tWinter 2021',
      '- Built SQL reports in Tableau for 40 store managers and cut reporting time by half.',
      'Research Assistant, Beta Labs\tFall 2020',
      '- Cleaned survey data in Python for 3 studies and wrote the weekly summaries.',
    ].join('\n')), { asOf: '2026-11' });
    expect(result.parsed.experience.map((e) => [e.start, e.end])).toEqual([['2020-12', '2021-02'], ['2020-09', '2020-11']]);
    expect(result.parsed.total_experience_months).toBe(6);
    expect(scoreResume(result, null, { asOf: '2026-11' }).quality.date_consistency.notes.join(' ')).not.toMatch(/gap of|roles from/);
  });
});
