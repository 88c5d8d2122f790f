import { describe, expect, it } from 'vitest';
import { parseResume } from '../../src/modules/resumes/parse/index.js';

const roleOf = async (header: string) => {
  const { parsed } = await parseResume(Buffer.from([
    'Jordan Example',
    'jordan@example.com | +1 415 555 0100',
    '',
    'EXPERIENCE',
    `${header}\tJan 2019 - Present`,
    '- Built SQL reports in Tableau for 40 store managers and cut reporting time by half.',
    '- Trained the team of analysts to run the weekly reports themselves, saving hours every week.',
  ].join('\n')), { asOf: '2026-11' });
  const { title, company, location } = parsed.experience[0];
  return { title, company, location };
};

describe('"Title, Company, City" headers: the company is not taken for a place (a review)', () => {
  it.each([
    ['Product Manager, Google, Mountain View, CA', { title: 'Product Manager', company: 'Google', location: 'Mountain View, CA' }],
    ['Software Engineer, Stripe, Dublin, Ireland', { title: 'Software Engineer', company: 'Stripe', location: 'Dublin, Ireland' }],
    ['Software Engineer, Stripe, Dublin', { title: 'Software Engineer', company: 'Stripe', location: null }],
    ['Senior Developer, Comarch S.A., Kraków', { title: 'Senior Developer', company: 'Comarch S.A.', location: null }],
    ['Software Engineer at Stripe, Dublin', { title: 'Software Engineer', company: 'Stripe', location: null }],
  ])('%s', async (header, expected) => {
    expect(await roleOf(header)).toEqual(expected);
  });

  it('what was read before still is', async () => {
    expect(await roleOf('Data Analyst, Acme Foods, Austin, TX')).toEqual({ title: 'Data Analyst', company: 'Acme Foods', location: 'Austin, TX' });
    expect(await roleOf('Software Engineer | Stripe | Dublin, Ireland')).toEqual({ title: 'Software Engineer', company: 'Stripe', location: 'Dublin, Ireland' });
    expect(await roleOf('Acme Corp, Austin, TX, Senior Engineer')).toEqual({ title: 'Senior Engineer', company: 'Acme Corp', location: 'Austin, TX' });
    expect(await roleOf('Data Engineer at Northwind, Seattle, WA')).toEqual({ title: 'Data Engineer', company: 'Northwind', location: 'Seattle, WA' });
  });
});

describe('roles grouped under one employer (a review)', () => {
  const experience = async (lines: string[]) => (await parseResume(Buffer.from([
    'Jordan Example', 'jordan@example.com | +1 415 555 0100', '', 'EXPERIENCE', ...lines,
  ].join('\n')), { asOf: '2026-11' })).parsed.experience.map((e) => [e.title, e.company, e.location]);

  it('a promotion listed under the employer\'s line keeps the employer as its company', async () => {
    expect(await experience([
      'Google — Mountain View, CA',
      'Senior Software Engineer\tJan 2021 – Present',
      '• Led a team of 6 building Go services for Ads, cutting latency 30%',
      'Software Engineer\tJun 2018 – Dec 2020',
      '• Built Java pipelines processing 2B events a day',
      '',
      'Acme Corp',
      'Data Analyst\t2016 – 2018',
      '• Built Python tooling for 40 analysts',
      'Freelance Developer\t2015 – 2016',
      '• Built websites in PHP for 12 local shops',
    ])).toEqual([
      ['Senior Software Engineer', 'Google', 'Mountain View, CA'],
      ['Software Engineer', 'Google', 'Mountain View, CA'],
      ['Data Analyst', 'Acme Corp', null],
      ['Freelance Developer', null, null],
    ]);
  });

  it('a role naming its company on its own header line lends it to no later role', async () => {
    expect(await experience([
      'Senior Engineer | Stripe\tJan 2021 – Present',
      '• Led a team of 6 building Go services, cutting latency 30%',
      'Software Engineer\tJun 2018 – Dec 2020',
      '• Built Java pipelines processing 2B events a day',
    ])).toEqual([['Senior Engineer', 'Stripe', null], ['Software Engineer', null, null]]);
  });
});
