import { describe, expect, it } from 'vitest';
import { briefFingerprint, normaliseBrief, SCORER_VERSION, scoreResume, type Brief, type ResumeScore } from '../../src/modules/resumes/scoring/index.js';
import { isQuantified } from '../../src/modules/resumes/scoring/quality.js';
import { extractRequirements, type Requirement } from '../../src/modules/resumes/scoring/requirements.js';
import { skillTaxonomy } from '../../src/modules/resumes/skills.js';
import type { EducationEntry, ExperienceEntry, ParseResult, ResumeWarning, SkillEvidence } from '../../src/modules/resumes/types.js';

const AS_OF = { asOf: '2024-06' };

// ---- fixtures ----

function role(title: string, start: string | null, end: string | 'present' | null, bullets: string[], company = 'Acme Corp'): ExperienceEntry {
  return { company, title, location: null, start, end: end === 'present' ? null : end, current: end === 'present', bullets };
}

function degree(name: string, field: string | null, institution = 'State University'): EducationEntry {
  return { institution, degree: name, field, start: '2008-09', end: '2012-06' };
}

interface ResumeSpec {
  name?: string;
  email?: string;
  phone?: string;
  summary?: string;
  experience?: ExperienceEntry[];
  education?: EducationEntry[];
  /** Skill names as written; `experience` when the parser saw them used in a dated role. */
  skills?: (string | [string, SkillEvidence])[];
  pages?: number;
  warnings?: ResumeWarning['code'][];
}

/** A ParseResult as the parser would produce it: the fields, and the visible lines by section. */
function resume(spec: ResumeSpec = {}): ParseResult {
  const name = spec.name ?? 'Jane Doe';
  const email = spec.email ?? 'jane.doe@example.com';
  const phone = spec.phone ?? '+14155550100';
  const experience = spec.experience ?? [];
  const education = spec.education ?? [];
  const skills = (spec.skills ?? []).map((s) => {
    const [written, evidence] = typeof s === 'string' ? [s, 'listed' as const] : s;
    return { name: written, canonical: skillTaxonomy().lookup(written)?.name ?? null, evidence };
  });
  const sections: ParseResult['sections'] = [{ name: 'contact', heading: null, lines: [name, `${email} · ${phone}`] }];
  if (spec.summary) sections.push({ name: 'summary', heading: 'Summary', lines: [spec.summary] });
  if (experience.length) {
    sections.push({
      name: 'experience', heading: 'Experience',
      lines: experience.flatMap((e) => [`${e.title} — ${e.company}, ${e.start ?? ''} – ${e.current ? 'Present' : e.end ?? ''}`, ...e.bullets]),
    });
  }
  if (education.length) sections.push({ name: 'education', heading: 'Education', lines: education.map((e) => `${e.degree}${e.field ? ` in ${e.field}` : ''}, ${e.institution}`) });
  if (skills.length) sections.push({ name: 'skills', heading: 'Skills', lines: [skills.map((s) => s.name).join(', ')] });
  return {
    contentType: 'application/pdf',
    pages: spec.pages ?? 1,
    parsed: {
      name, email, phone, location: 'Berlin, Germany', links: { linkedin: null, github: null, site: null },
      summary: spec.summary ?? null, experience, education, skills, languages: [], certifications: [],
      total_experience_months: 0, sections_found: sections.map((s) => s.name),
      warnings: (spec.warnings ?? []).map((code) => ({ code, message: code })),
    },
    sections,
  };
}

const brief = (role: string | null, jd: string | null = null): Brief => normaliseBrief({ role, job_description: jd })!;
const requirement = (score: ResumeScore, label: string) => {
  const found = score.requirements.find((r) => r.requirement === label);
  if (!found) throw new Error(`no requirement ${label} in ${score.requirements.map((r) => r.requirement).join(', ')}`);
  return found;
};
const skillReq = (reqs: Requirement[], name: string) => reqs.find((r) => r.kind === 'skill' && r.skill.name === name);

/** Every number finite, no undefined anywhere: the score survives JSON unchanged. */
function assertJsonReady(value: unknown, path = 'score'): void {
  expect(value, path).not.toBeUndefined();
  if (typeof value === 'number') expect(Number.isFinite(value), path).toBe(true);
  else if (Array.isArray(value)) value.forEach((v, i) => assertJsonReady(v, `${path}[${i}]`));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) assertJsonReady(v, `${path}.${k}`);
}

const BACKEND_JD = [
  "We're hiring a senior backend engineer to join our platform team.",
  '',
  'Requirements:',
  '- 5+ years of professional software experience',
  '- Strong Go and PostgreSQL',
  '- Running services on Kubernetes in production',
  "- Bachelor's degree in Computer Science or equivalent experience",
  '',
  'Nice to have:',
  '- Kafka',
  '- Terraform',
  '',
  'Python is a plus.',
].join('\n');

// ---- brief ----

describe('the brief', () => {
  it('normalises text (NFKC, trimmed, collapsed spaces, line breaks kept in the JD) and treats empty as absent', () => {
    expect(normaliseBrief({})).toBeNull();
    expect(normaliseBrief({ role: '   ', job_description: '\n\t\n' })).toBeNull();
    expect(normaliseBrief({ role: '  Senior\tBackend \u00a0 Engineer\n' })).toEqual({ role: 'Senior Backend Engineer', job_description: null });
    expect(normaliseBrief({ role: null, job_description: 'Requirements:\r\n\r\n\r\n-   Ｇｏ  and\tPostgreSQL  \n' }))
      .toEqual({ role: null, job_description: 'Requirements:\n\n- Go and PostgreSQL' });
  });

  it('fingerprints the same brief the same whatever its spacing and blank lines, and any change the scorer sees differently', () => {
    const a = briefFingerprint(brief('Senior Backend Engineer', BACKEND_JD));
    expect(a).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(briefFingerprint(brief('  Senior   Backend Engineer ', BACKEND_JD.replace(/\n/g, '\n\n\n  ').replace(/ /g, ' \t')))).toBe(a);
    // Was a bug: the fingerprint was case-folded, but "Go", "C" and "R" are skills only capitalised; a brief re-sent
    // with its case corrected got the stored score of the other, for free.
    expect(briefFingerprint(brief('senior backend engineer', BACKEND_JD))).not.toBe(a);
    expect(briefFingerprint(brief('Senior Backend Engineer', BACKEND_JD.toUpperCase()))).not.toBe(a);
    expect(briefFingerprint(brief(null, '- Go, C and R'))).not.toBe(briefFingerprint(brief(null, '- go, c and r')));
    // Line breaks carry headings and lists: joining two lines is a different brief.
    expect(briefFingerprint(brief(null, 'Requirements:\n- Go'))).not.toBe(briefFingerprint(brief(null, 'Requirements: - Go')));
    expect(briefFingerprint(brief('Senior Backend Engineer', BACKEND_JD.replace('5+', '6+')))).not.toBe(a);
    expect(briefFingerprint(brief('Staff Backend Engineer', BACKEND_JD))).not.toBe(a);
    // Role and JD stay apart: moving text from one to the other is a different brief.
    expect(briefFingerprint(brief('Engineer Go', null))).not.toBe(briefFingerprint(brief('Engineer', 'Go')));
    const standalone = briefFingerprint(null);
    expect(standalone).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(briefFingerprint(null)).toBe(standalone);
    expect(standalone).not.toBe(a);
  });
});

// ---- requirements ----

describe('requirement extraction', () => {
  it('reads skills with their importance, years, seniority and degree from the role and JD', () => {
    const reqs = extractRequirements(brief('Senior Backend Engineer', BACKEND_JD));
    expect(skillReq(reqs, 'Go')).toMatchObject({ importance: 'required' });
    expect(skillReq(reqs, 'PostgreSQL')).toMatchObject({ importance: 'required' });
    expect(skillReq(reqs, 'Kubernetes')).toMatchObject({ importance: 'required' });
    expect(skillReq(reqs, 'Kafka')).toMatchObject({ importance: 'preferred' });
    expect(skillReq(reqs, 'Terraform')).toMatchObject({ importance: 'preferred' });
    expect(skillReq(reqs, 'Python')).toMatchObject({ importance: 'preferred' });
    expect(reqs.find((r) => r.kind === 'experience_years')).toMatchObject({ years: 5, importance: 'required', label: '5+ years of experience' });
    expect(reqs.find((r) => r.kind === 'seniority')).toMatchObject({ level: 'senior' });
    expect(reqs.find((r) => r.kind === 'education')).toMatchObject({ level: 'bachelor', fields: ['Computer Science'], equivalentExperience: true });
    // Each skill once, in order of first mention.
    const names = reqs.filter((r) => r.kind === 'skill').map((r) => r.label);
    expect(new Set(names).size).toBe(names.length);
    expect(names.indexOf('Go')).toBeLessThan(names.indexOf('Kafka'));
    expect(extractRequirements(brief('Senior Backend Engineer', BACKEND_JD))).toEqual(reqs);
  });

  it('reads years written as ranges, words and minimums', () => {
    const years = (jd: string) => extractRequirements(brief(null, jd)).find((r) => r.kind === 'experience_years');
    expect(years('3-5 years of experience building APIs')).toMatchObject({ years: 3, upTo: 5 });
    expect(years('At least three years in a similar role')).toMatchObject({ years: 3 });
    expect(years('You have five years of experience')).toMatchObject({ years: 5 });
    expect(years('Founded 12 years ago, we build tools')).toBeUndefined();
    expect(years('Requirements:\n- 2+ years with Go\n\nPreferred:\n- 8+ years overall')).toMatchObject({ years: 2, importance: 'required' });
  });

  it('reads headings only when they are headings, and leaves out the parts about the company', () => {
    const reqs = extractRequirements(brief(null, [
      'Experience with Go', 'Kubernetes', '', '**Preferred Skills and Experience**', '- Rust', 'Experience with Kafka and Redis:', '- at scale',
      '', 'Requirements', 'Python', '', 'What we offer', 'Remote work and a learning budget',
    ].join('\n')));
    expect(reqs.map((r) => [r.label, r.importance])).toEqual([
      ['Go', 'required'], ['Kubernetes', 'required'], ['Rust', 'preferred'], ['Kafka', 'preferred'], ['Redis', 'preferred'], ['Python', 'required'],
    ]);
    expect(extractRequirements(brief('Backend Engineer', "We're hiring! Work with the hiring manager on Go services.")).map((r) => r.label)).toEqual(['Go']);
  });

  it('marks a sentence preferred by its wording and finds seniority and degrees in prose', () => {
    const reqs = extractRequirements(brief(null, 'Python required, Go preferred. You will mentor junior engineers. A Master\'s degree is a plus.'));
    expect(skillReq(reqs, 'Python')).toMatchObject({ importance: 'required' });
    expect(skillReq(reqs, 'Go')).toMatchObject({ importance: 'preferred' });
    expect(reqs.find((r) => r.kind === 'seniority')).toBeUndefined();
    expect(reqs.find((r) => r.kind === 'education')).toMatchObject({ level: 'master', importance: 'preferred', equivalentExperience: false });
    expect(extractRequirements(brief('Engineering Manager', 'We are looking for a PhD in Physics.')).filter((r) => r.kind !== 'skill'))
      .toMatchObject([{ kind: 'seniority', level: 'manager' }, { kind: 'education', level: 'phd', fields: ['Physics'] }]);
  });

  it.each([
    'Experience with Kafka is a strong plus', 'Kafka is a definite plus', 'Kafka experience is an asset', 'Kafka would be a real asset',
    'Familiarity with Kafka is beneficial', 'Kafka knowledge is helpful but not essential', 'Kafka is not mandatory', 'Kafka knowledge is appreciated',
  ])('"%s" under Requirements is preferred, Python beside it required (a review)', (line) => {
    const reqs = extractRequirements(brief(null, `Requirements:\n- Python\n- ${line}`));
    expect(skillReq(reqs, 'Python')).toMatchObject({ importance: 'required' });
    expect(skillReq(reqs, 'Kafka')).toMatchObject({ importance: 'preferred' });
  });
});

// ---- matching ----

const MATCH_JD = 'Requirements:\n- Go\n- PostgreSQL\n- Kubernetes\n- Kafka\n- Terraform\n\nNice to have:\n- GraphQL';

describe('matching skills', () => {
  const score = scoreResume(resume({
    experience: [
      role('Backend Engineer', '2019-01', 'present', [
        'Built payment services in Golang handling 2M requests a day',
        'Ran PostgreSQL clusters with zero downtime upgrades',
        'Built streaming jobs on Apache Flink',
      ]),
    ],
    skills: ['Terraform', 'Golang', 'PostgreSQL'],
  }), brief('Backend Engineer', MATCH_JD), AS_OF);

  it('matches a skill used in a dated role, exactly or by synonym, quoting the line', () => {
    expect(requirement(score, 'PostgreSQL')).toMatchObject({ status: 'matched', match_type: 'exact' });
    expect(requirement(score, 'PostgreSQL').evidence[0]).toEqual({ section: 'experience', text: 'Ran PostgreSQL clusters with zero downtime upgrades' });
    const go = requirement(score, 'Go');
    expect(go).toMatchObject({ status: 'matched', match_type: 'synonym' });
    expect(go.points).toBe(go.max_points);
    expect(go.evidence[0].text).toContain('Golang');
  });

  it('gives partial credit for a listed-only skill and for a closely related skill used, none for a missing one', () => {
    const terraform = requirement(score, 'Terraform');
    expect(terraform).toMatchObject({ status: 'partial', match_type: 'exact' });
    expect(terraform.evidence[0]).toEqual({ section: 'skills', text: 'Terraform, Golang, PostgreSQL' });
    expect(terraform.points / terraform.max_points).toBeCloseTo(0.35, 2);
    const kafka = requirement(score, 'Kafka');
    expect(kafka).toMatchObject({ status: 'partial', match_type: 'related' });
    expect(kafka.points / kafka.max_points).toBeCloseTo(0.5, 2);
    expect(kafka.evidence[0].text).toContain('Apache Flink');
    // The taxonomy lists Kubernetes as closely related to Go, which is used.
    expect(requirement(score, 'Kubernetes')).toMatchObject({ status: 'partial', match_type: 'related' });
    expect(requirement(score, 'GraphQL')).toMatchObject({ status: 'missing', match_type: null, points: 0, evidence: [] });
  });

  it('weighs required skills twice preferred ones, and keeps the parts within 100', () => {
    expect(requirement(score, 'GraphQL').importance).toBe('preferred');
    expect(requirement(score, 'Go').max_points).toBeCloseTo(2 * requirement(score, 'GraphQL').max_points, 1);
    const max = score.requirements.reduce((n, r) => n + r.max_points, 0) + score.experience_fit!.max_points + score.role_similarity!.max_points;
    expect(max).toBeCloseTo(100, 0);
    expect(score.requirements.reduce((n, r) => n + r.max_points, 0)).toBeCloseTo(60, 0);
    expect(score.experience_fit!.max_points).toBe(25);
    expect(score.role_similarity!.max_points).toBe(15);
  });
});

describe('keyword stuffing', () => {
  const jd = 'Requirements:\n- Go\n- PostgreSQL\n- Kubernetes\n- Docker\n- Kafka\n- Terraform\n- 4+ years of experience';
  const listed = ['Go', 'PostgreSQL', 'Kubernetes', 'Docker', 'Kafka', 'Terraform', 'GraphQL', 'Redis'];
  const stuffed = resume({
    experience: [
      role('Software Engineer', '2016-01', '2019-12', ['Worked on internal tools for the sales team', 'Fixed bugs reported by customers']),
      role('Software Engineer', '2020-01', 'present', ['Maintained the company website', 'Attended planning meetings every week']),
    ],
    skills: listed,
  });
  const used = resume({
    experience: [
      role('Software Engineer', '2016-01', '2019-12', ['Wrote Go services backed by PostgreSQL', 'Packaged every service with Docker']),
      role('Software Engineer', '2020-01', 'present', ['Moved 40 services to Kubernetes', 'Built event pipelines on Kafka']),
    ],
    skills: listed,
  });

  // Was a bug: a "Keywords: …" bullet inside a dated role counted every skill it named as used (a resume of such a
  // bullet scored 100, above real use, with no stuffing flag).
  it('reads a keywords line inside a dated role as a list, not as use', () => {
    const experience = [
      role('Software Engineer', '2016-01', '2019-12', ['Worked on internal tools for the sales team', 'Keywords: Go PostgreSQL Kubernetes Docker Kafka Terraform']),
      role('Software Engineer', '2020-01', 'present', ['Maintained the company website', 'Tags: GraphQL, Redis, Go']),
    ];
    const b = scoreResume(used, brief('Backend Engineer', jd), AS_OF);
    // As listed skills, and as the parser reports skills it saw in a role's lines ("experience").
    for (const skills of [listed, listed.map((name) => [name, 'experience'] as [string, SkillEvidence])]) {
      const k = scoreResume(resume({ experience, skills }), brief('Backend Engineer', jd), AS_OF);
      expect(k.overall).toBeLessThan(b.overall - 20);
      expect(k.flags).toContain('keyword_stuffing');
      expect(requirement(k, 'Go').status).toBe('partial');
    }
  });

  it('scores listing every skill clearly below using most of them in dated roles, and flags it', () => {
    const a = scoreResume(stuffed, brief('Backend Engineer', jd), AS_OF);
    const b = scoreResume(used, brief('Backend Engineer', jd), AS_OF);
    expect(a.overall).toBeLessThan(b.overall - 20);
    expect(a.flags).toContain('keyword_stuffing');
    expect(b.flags).not.toContain('keyword_stuffing');
    expect(requirement(a, 'Go').status).toBe('partial');
    expect(requirement(b, 'Go').status).toBe('matched');
  });
});

// ---- experience, role, seniority, education ----

describe('experience fit and role similarity', () => {
  it('counts overlapping months once, and relevant years from similar titles or required skills', () => {
    const score = scoreResume(resume({
      experience: [
        role('Barista', '2012-01', '2013-12', ['Served coffee']),
        role('Software Developer', '2018-01', '2020-12', ['Built Go services']),
        role('Site Reliability Engineer', '2020-01', '2021-12', ['Ran Kubernetes clusters']),
      ],
    }), brief('Software Engineer', 'Requirements:\n- 5+ years of experience\n- Go'), AS_OF);
    expect(score.experience_fit).toMatchObject({ required_years: 5, candidate_years: 6, relevant_years: 4 });
    expect(score.experience_fit!.points).toBeGreaterThan(0);
    expect(score.experience_fit!.points).toBeLessThan(score.experience_fit!.max_points);
    expect(score.experience_fit!.evidence.map((e) => e.text).join('\n')).toContain('2018-01');
    expect(score.role_similarity).toMatchObject({ closest_title: 'Software Developer' });
  });

  it('reads titles with synonyms and without seniority, weighting recent roles more', () => {
    const sim = (wanted: string, title: string, end: string | 'present' = 'present') =>
      scoreResume(resume({ experience: [role(title, '2020-01', end, [])] }), brief(wanted), AS_OF).role_similarity!;
    expect(sim('Software Engineer', 'Senior SWE').score).toBeGreaterThanOrEqual(0.9);
    expect(sim('Site Reliability Engineer', 'DevOps Engineer').score).toBeGreaterThanOrEqual(0.9);
    expect(sim('Data Scientist', 'ML Engineer').score).toBeCloseTo(0.6, 2);
    expect(sim('Software Engineer', 'Pastry Chef').score).toBe(0);
    expect(sim('Software Engineer', 'Software Engineer', '2016-06').score).toBeLessThan(sim('Software Engineer', 'Software Engineer').score);
  });
});

describe('seniority and education', () => {
  const jd = "Requirements:\n- Bachelor's degree in Computer Science";
  it('matches a senior title and a fitting degree, quoting them', () => {
    const score = scoreResume(resume({
      experience: [role('Senior Software Engineer', '2019-01', 'present', []), role('Software Engineer', '2015-01', '2018-12', [])],
      education: [degree('BSc', 'Computer Science')],
    }), brief('Senior Backend Engineer', jd), AS_OF);
    const seniority = requirement(score, 'Seniority: senior');
    expect(seniority.status).toBe('matched');
    expect(seniority.evidence[0].text).toContain('Senior Software Engineer');
    const education = score.requirements.find((r) => r.kind === 'education')!;
    expect(education).toMatchObject({ status: 'matched', importance: 'required' });
    expect(education.evidence[0]).toEqual({ section: 'education', text: 'BSc in Computer Science, State University' });
  });

  it('gives partial credit a level short or for another field, none without a degree', () => {
    const junior = scoreResume(resume({
      experience: [role('Software Engineer', '2021-06', 'present', [])],
      education: [degree('BA', 'History')],
    }), brief('Senior Backend Engineer', jd), AS_OF);
    expect(requirement(junior, 'Seniority: senior').status).toBe('partial');
    expect(junior.requirements.find((r) => r.kind === 'education')).toMatchObject({ status: 'partial' });
    const none = scoreResume(resume({ experience: [role('Intern', '2023-06', 'present', [])] }), brief('Staff Engineer', jd), AS_OF);
    expect(requirement(none, 'Seniority: staff').status).toBe('missing');
    expect(none.requirements.find((r) => r.kind === 'education')).toMatchObject({ status: 'missing', points: 0 });
  });

  it('accepts equivalent experience when the JD does', () => {
    const score = scoreResume(resume({ experience: [role('Software Engineer', '2016-01', 'present', [])] }),
      brief(null, "Bachelor's degree in Computer Science or equivalent experience"), AS_OF);
    expect(score.requirements.find((r) => r.kind === 'education')).toMatchObject({ status: 'matched' });
  });
});

// ---- standalone ----

describe('standalone quality', () => {
  const result = resume({
    summary: 'Backend engineer who likes boring, reliable systems.',
    experience: [
      role('Senior Engineer', '2020-10', 'present', ['Cut p95 latency by 40% across the checkout path', 'Saved $120k a year by consolidating clusters'], 'Delta'),
      role('Software Engineer', '2018-09', '2021-03', ['Wrote documentation for the platform team', 'Migrated the billing jobs to a new scheduler in 2019'], 'Gamma'),
      role('Software Engineer', '2015-01', '2017-12', ['Shipped the first mobile app to three markets'], 'Beta'),
    ],
    education: [degree('BSc', 'Computer Science')],
    skills: ['Go', 'PostgreSQL'],
  });
  const score = scoreResume(result, null, AS_OF);

  it('is standalone: no requirements, experience fit or role similarity, the empty-brief fingerprint', () => {
    expect(score).toMatchObject({ mode: 'standalone', scorer_version: SCORER_VERSION, role: null, requirements: [], experience_fit: null, role_similarity: null });
    expect(score.brief_fingerprint).toBe(briefFingerprint(null));
    expect(Number.isInteger(score.overall)).toBe(true);
    expect(score.overall).toBeGreaterThan(0);
    expect(score.overall).toBeLessThanOrEqual(100);
  });

  it('finds the gap and the overlapping full-time roles, with their dates', () => {
    const dates = score.quality.date_consistency;
    expect(dates.notes).toContain('gap of 8 months between 2017-12 and 2018-09');
    expect(dates.notes).toContain('overlapping full-time roles from 2020-10 to 2021-03 (6 months)');
    const quoted = dates.evidence.map((e) => e.text);
    expect(quoted).toContain('Software Engineer, Beta (2015-01 – 2017-12)');
    expect(quoted).toContain('Software Engineer, Gamma (2018-09 – 2021-03)');
    expect(quoted).toContain('Senior Engineer, Delta (2020-10 – present)');
    expect(dates.score).toBeLessThan(100);
  });

  it('a role starting after the current month is not called undated, nor marked down (an incoming job; a review)', () => {
    const incoming = resume({
      experience: [
        role('Software Engineer', '2024-09', 'present', ['Joining the payments team after graduation']),
        role('Software Engineer Intern', '2023-06', '2023-09', ['Built a Go service that cut build times by 30%']),
      ],
    });
    const dates = scoreResume(incoming, null, AS_OF).quality.date_consistency;
    expect(dates.notes).not.toContain('1 role without a readable start date');
    expect(dates.notes).toContain('1 role starting after 2024-06 (not counted)');
    expect(dates.score).toBe(100);
  });

  it('notes the first overlaps, gaps and reversed dates of a resume of thousands of roles, not every pair', () => {
    const many = resume({
      experience: [
        ...Array.from({ length: 3000 }, (_, i) => role('Software Engineer', '2015-01', 'present', ['Built Kafka pipelines in Go'], `Company ${i}`)),
        ...Array.from({ length: 40 }, (_, i) => role('Analyst', `${1960 + i}-01`, `${1960 + i}-03`, ['Wrote reports'], `Old ${i}`)),
        ...Array.from({ length: 20 }, (_, i) => role('Clerk', '2014-05', '2014-01', ['Filed papers'], `Reversed ${i}`)),
      ],
    });
    const dates = scoreResume(many, null, AS_OF).quality.date_consistency;
    expect(dates.score).toBe(0);
    expect(dates.notes.filter((n) => n.startsWith('overlapping full-time roles'))).toHaveLength(10);
    expect(dates.notes).toContain('more overlapping full-time roles');
    expect(dates.notes.filter((n) => n.startsWith('gap of'))).toHaveLength(10);
    expect(dates.notes.some((n) => /^\d+ more gaps over \d+ months$/.test(n))).toBe(true);
    expect(dates.notes).toContain('10 more roles ending before they start');
    expect(dates.evidence.length).toBeLessThanOrEqual(8);
  });

  it('reads one role of twenty thousand bullets naming the same skills once each (no comparing every line with all)', () => {
    const bullets = Array.from({ length: 20_000 }, (_, i) => `Built Kafka pipelines in Go and Python cutting latency by ${i}%`);
    const score = scoreResume(resume({ experience: [role('Senior Engineer', '2015-01', 'present', bullets)] }), null, AS_OF);
    expect(score.quality.quantified_achievements.score).toBeGreaterThan(0);
  }, 10_000); // a fraction of a second; comparing every line with all took 12 s

  it('counts quantified bullets (numbers, percentages, money; a year alone is not one)', () => {
    const q = score.quality.quantified_achievements;
    expect(q.notes).toEqual(['3 of 5 bullets quantified (60%)']);
    expect(q.evidence.map((e) => e.text)).toEqual([
      'Cut p95 latency by 40% across the checkout path',
      'Saved $120k a year by consolidating clusters',
      'Shipped the first mobile app to three markets',
    ]);
    expect(q.score).toBe(100);
  });

  it('does not take the digits of a name or a version for a quantity (a review)', () => {
    for (const bullet of ['Deployed services on AWS EC2 and S3', 'Ran workloads on k8s behind IPv6 load balancers', 'Built a B2B portal with Log4j logging',
      'Wrote ES6 modules for a Web3 wallet', 'Migrated the codebase to Python 3.11', 'Upgraded Angular 8 to Angular 12', 'Implemented OAuth 2.0 login', 'Shipped in Q3 2021']) {
      expect(isQuantified(bullet), bullet).toBe(false);
    }
    for (const bullet of ['Cut p95 latency by 40%', 'Served 3 million users', 'Handled 10k requests per second on EC2', 'Saved $2M a year',
      'Managed a team of five', 'Made Python 3 builds 2.5x faster', 'Led 12 engineers']) {
      expect(isQuantified(bullet), bullet).toBe(true);
    }
  });

  it('rates completeness and length with notes', () => {
    expect(score.quality.completeness.score).toBe(100);
    const sparse = scoreResume(resume({ experience: [role('Engineer', '2020-01', 'present', ['Did things'])] }), null, AS_OF);
    expect(sparse.quality.completeness.notes).toEqual(['missing: summary', 'missing: education', 'missing: skills']);
    expect(sparse.overall).toBeLessThan(score.overall);
    const long = scoreResume(resume({ ...{ experience: result.parsed.experience }, pages: 4 }), null, AS_OF);
    expect(long.quality.clarity_and_length.notes).toContain('4 pages (1–2 is ideal)');
    expect(long.quality.clarity_and_length.score).toBeLessThan(score.quality.clarity_and_length.score);
  });
});

// ---- fairness and determinism ----

describe('the score as a whole', () => {
  const cv = (name: string, email: string, phone: string) => resume({
    name, email, phone,
    summary: `${name} builds backend systems in Go.`,
    experience: [role('Backend Engineer', '2019-01', 'present', ['Wrote Go services on PostgreSQL serving 3M users'])],
    education: [degree('BSc', 'Computer Science', 'Famous Institute of Technology')],
    skills: ['Go', 'PostgreSQL', 'Kubernetes'],
    warnings: ['hidden_text'],
  });

  it('is the same for the same resume under another name, email and phone (even a name that is a skill)', () => {
    const b = brief('Senior Backend Engineer', BACKEND_JD);
    expect(scoreResume(cv('Jane Doe', 'jane@example.com', '+14155550100'), b, AS_OF))
      .toEqual(scoreResume(cv('Mohammed Al-Rashid', 'm.rashid@example.org', '+442071838750'), b, AS_OF));
    expect(scoreResume(cv('Jane Doe', 'jane@example.com', '+14155550100'), null, AS_OF))
      .toEqual(scoreResume(cv('Ruby Chen', 'ruby@example.net', '+821012345678'), null, AS_OF));
    expect(scoreResume(cv('Jane Doe', 'jane@example.com', '+14155550100'), brief(null, 'Ruby required'), AS_OF))
      .toEqual(scoreResume(cv('Ruby Chen', 'ruby@example.net', '+821012345678'), brief(null, 'Ruby required'), AS_OF));
    expect(JSON.stringify(scoreResume(cv('Jane Doe', 'jane@example.com', '+1'), b, AS_OF))).not.toMatch(/Jane|jane@/);
  });

  it('is deterministic, JSON-ready, within 0–100, and says what it ignores', () => {
    for (const b of [brief('Senior Backend Engineer', BACKEND_JD), null]) {
      const first = scoreResume(cv('Jane Doe', 'jane@example.com', '+1'), b, AS_OF);
      expect(scoreResume(cv('Jane Doe', 'jane@example.com', '+1'), b, AS_OF)).toEqual(first);
      expect(JSON.parse(JSON.stringify(first))).toEqual(first);
      assertJsonReady(first);
      expect(Number.isInteger(first.overall) && first.overall >= 0 && first.overall <= 100).toBe(true);
      expect(first.ignored).toEqual(['name', 'photo', 'age and date of birth', 'gender and gendered words', 'marital status', 'address', 'nationality', 'school prestige']);
      expect(first.flags).toContain('hidden_text_ignored');
      for (const e of [...first.requirements.flatMap((r) => r.evidence), ...Object.values(first.quality).flatMap((c) => c.evidence)]) {
        expect(e.text.length).toBeLessThanOrEqual(200);
      }
    }
  });

  it('quotes long lines at most 200 characters, cut at a word', () => {
    const long = `Led the migration of ${'a very large legacy monolith '.repeat(10)}to Go services`;
    const score = scoreResume(resume({ experience: [role('Backend Engineer', '2019-01', 'present', [long])] }), brief(null, 'Go'), AS_OF);
    const text = requirement(score, 'Go').evidence[0].text;
    expect(text.length).toBeLessThanOrEqual(200);
    expect(text).toMatch(/^….*Go services$/);
  });

  it('needs the current month from the caller, and flags a resume without dated roles', () => {
    expect(() => scoreResume(resume(), null, { asOf: 'June 2024' })).toThrow(/YYYY-MM/);
    const undated = scoreResume(resume({ experience: [role('Engineer', null, null, ['Built things'])] }), brief('Engineer'), AS_OF);
    expect(undated.flags).toContain('no_dated_experience');
    expect(undated.experience_fit).toMatchObject({ candidate_years: 0, relevant_years: 0 });
  });
});
