import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readBank, readTaxonomy, titleKey } from '../../src/modules/question-bank/content.js';
import { isSituational } from '../../src/modules/interviews/plan.js';
import { MEASURES, methodFor, readRoundMethods, RATINGS, RoundMethodError, validateRoundMethods } from '../../src/modules/interviews/interviewer/method.js';

// The round methods catalogue: every round type has a method the interviewer and the report can use, every
// competency has a complete anchored scale and a measure the report implements, and the rounds' own questions
// follow the question bank's rules.
const roundTypes = JSON.parse(readFileSync(new URL('../../catalog/round-types.json', import.meta.url), 'utf8')) as Array<{ slug: string }>;
const raw = () => JSON.parse(readFileSync(new URL('../../catalog/interviews/rounds.json', import.meta.url), 'utf8'));
const taxonomy = readTaxonomy();
const methods = readRoundMethods();

describe('the round methods catalogue', () => {
  it('has a method for every round type, and a default', () => {
    const slugs = methods.map((m) => m.slug);
    for (const r of roundTypes) expect(slugs, r.slug).toContain(r.slug);
    expect(slugs).toContain('default');
    expect(new Set(slugs).size).toBe(slugs.length);
  });

  it('maps each round to its style and bank categories', () => {
    const expected: Record<string, [string, string[]]> = {
      behavioral: ['behavioral', ['behavioral']],
      'system-design': ['system_design', ['system-design']],
      'live-coding': ['coding', ['coding']],
      'frontend-engineering': ['technical', ['front-end']],
      'data-sql': ['technical', ['sql-data']],
      'machine-learning': ['technical', ['machine-learning']],
      'product-sense': ['technical', []],
      'hiring-manager-screen': ['behavioral', ['behavioral']],
      default: ['behavioral', ['behavioral']],
    };
    for (const [slug, [style, categories]] of Object.entries(expected)) {
      expect(methodFor(slug).style, slug).toBe(style);
      expect(methodFor(slug).categories, slug).toEqual(categories);
    }
  });

  it('gives every round 3 to 5 competencies with unique slugs, complete anchors and a known measure', () => {
    for (const m of methods) {
      expect(m.competencies.length, m.slug).toBeGreaterThanOrEqual(3);
      expect(m.competencies.length, m.slug).toBeLessThanOrEqual(5);
      expect(new Set(m.competencies.map((c) => c.slug)).size, m.slug).toBe(m.competencies.length);
      // Two competencies on one measure would always get the same rating.
      expect(new Set(m.competencies.map((c) => c.measure)).size, m.slug).toBe(m.competencies.length);
      for (const c of m.competencies) {
        expect(MEASURES, `${m.slug}.${c.slug}`).toContain(c.measure);
        expect(Object.keys(c.anchors).sort(), `${m.slug}.${c.slug}`).toEqual([...RATINGS]);
        for (const r of RATINGS) expect(c.anchors[r].trim().length, `${m.slug}.${c.slug}.${r}`).toBeGreaterThan(10);
        expect(new Set(Object.values(c.anchors)).size, `${m.slug}.${c.slug} anchors distinct`).toBe(5);
      }
    }
  });

  it('uses every measure the report implements, and only measures that suit the round style', () => {
    expect(new Set(methods.flatMap((m) => m.competencies.map((c) => c.measure)))).toEqual(new Set(MEASURES));
    for (const m of methods) {
      for (const c of m.competencies) {
        if (c.measure.startsWith('design_')) expect(m.style, `${m.slug}.${c.slug}`).toBe('system_design');
        if (c.measure.startsWith('code_')) expect(m.style, `${m.slug}.${c.slug}`).toBe('coding');
        if (c.measure.startsWith('star_')) expect(m.style, `${m.slug}.${c.slug}`).toBe('behavioral');
      }
    }
  });

  it('reads a behavioural bank question that sets out a scenario as situational (followed up as a view), and only those', () => {
    const behavioral = readBank(taxonomy, new Set(readdirSync(new URL('../../catalog/coding/problems/', import.meta.url))))
      .filter((e) => e.category === 'behavioral').map((e) => e.question);
    // Read and checked by hand: the ten that put the candidate in a scenario ("You are…", "You manage…", "You joined…").
    expect(behavioral.filter((q) => isSituational(q.prompt)).map((q) => q.slug).sort()).toEqual([
      'deadlocked-senior-engineers-on-architecture', 'estimating-in-an-unfamiliar-codebase-under-pressure', 'first-on-call-alert-unfamiliar-service',
      'high-performer-damaging-team-culture', 'intern-two-engineers-conflicting-requests', 'leading-a-team-through-a-reorganisation',
      'new-vp-demands-unrealistic-rewrite-date', 'patient-data-in-application-logs', 'release-in-one-hour-with-a-suspected-bug',
      'sales-and-operations-both-want-your-sprint',
    ]);
    expect(isSituational('Tell me about a time you disagreed with a decision. *Situational question.*')).toBe(false);
  });

  it('takes an opening question only from the round\'s own questions', () => {
    const rounds = raw();
    const screen = rounds.find((m: any) => m.slug === 'hiring-manager-screen');
    expect(screen.opening_question).toBe('why-this-role-and-why-now');
    screen.opening_question = 'no-such-question';
    expect(() => validateRoundMethods(rounds, taxonomy)).toThrow(/hiring-manager-screen.*opening_question/);
    const behavioral = rounds.find((m: any) => m.slug === 'behavioral');
    behavioral.opening_question = 'why-this-role-and-why-now';
    delete screen.opening_question;
    expect(() => validateRoundMethods(rounds, taxonomy)).toThrow(/\(behavioral\).*opening_question/);
  });

  it('marks as views only the round\'s own questions, each once', () => {
    expect(methodFor('hiring-manager-screen').view_questions).toEqual(['why-this-role-and-why-now', 'career-direction-next-few-years', 'team-environment-where-you-do-your-best-work']);
    for (const bad of [[], ['no-such-question'], ['career-direction-next-few-years', 'career-direction-next-few-years'], 'career-direction-next-few-years', [7]]) {
      const rounds = raw();
      rounds.find((m: any) => m.slug === 'hiring-manager-screen').view_questions = bad;
      expect(() => validateRoundMethods(rounds, taxonomy), JSON.stringify(bad)).toThrow(/hiring-manager-screen.*view_questions/);
    }
    const rounds = raw();
    rounds.find((m: any) => m.slug === 'behavioral').view_questions = ['career-direction-next-few-years'];
    expect(() => validateRoundMethods(rounds, taxonomy)).toThrow(/\(behavioral\).*view_questions/);
  });

  it('gives the rounds without a bank category their own valid questions, distinct from the bank', () => {
    const bank = readBank(taxonomy, new Set(readdirSync(new URL('../../catalog/coding/problems/', import.meta.url))));
    const bankSlugs = new Set(bank.map((e) => e.question.slug));
    const bankTitles = new Set(bank.map((e) => titleKey(e.question.title)));
    expect(methodFor('product-sense').questions!.length).toBeGreaterThanOrEqual(5);
    expect(methodFor('hiring-manager-screen').questions!.length).toBeGreaterThanOrEqual(3);
    for (const m of methods) {
      if (m.categories.length === 0) expect(m.questions?.length ?? 0, m.slug).toBeGreaterThan(0);
      for (const q of m.questions ?? []) {
        expect(bankSlugs.has(q.slug), q.slug).toBe(false);
        expect(bankTitles.has(titleKey(q.title)), q.title).toBe(false);
        expect(q.prompt.length).toBeGreaterThanOrEqual(150);
        expect(q.prompt.length).toBeLessThanOrEqual(2000);
        expect(q.guidance.key_points.length).toBeGreaterThanOrEqual(3);
        expect(q.guidance.key_points.length).toBeLessThanOrEqual(8);
        expect(q.guidance.follow_ups.length).toBeGreaterThanOrEqual(2);
        expect(q.guidance.follow_ups.length).toBeLessThanOrEqual(5);
      }
    }
    // Every difficulty is there for product sense, so any interview difficulty draws a near question.
    expect(new Set(methodFor('product-sense').questions!.map((q) => q.difficulty))).toEqual(new Set(['easy', 'medium', 'hard']));
  });

  it('falls back to the default method for an organisation\'s own round types', () => {
    expect(methodFor('acme-culture-chat').slug).toBe('default');
    expect(methodFor('behavioral').slug).toBe('behavioral');
  });

  it('refuses a catalogue that breaks a rule, naming the round', () => {
    const broken = (change: (m: any[]) => void) => {
      const m = raw();
      change(m);
      return () => validateRoundMethods(m, taxonomy);
    };
    expect(broken(() => undefined)).not.toThrow();
    expect(broken((m) => { delete m[0].competencies[0].anchors['3']; })).toThrow(/behavioral.*anchors/);
    expect(broken((m) => { m[0].competencies[1].measure = 'vibes'; })).toThrow(/behavioral.*measure/);
    expect(broken((m) => { m[0].competencies[1].slug = m[0].competencies[0].slug; })).toThrow(/twice/);
    expect(broken((m) => { m[1].categories = ['astrology']; })).toThrow(/system-design.*unknown category astrology/);
    expect(broken((m) => { m[0].competencies = m[0].competencies.slice(0, 2); })).toThrow(/competencies: 3 to 5/);
    expect(broken((m) => { m[0].question_minutes = 0; })).toThrow(/question_minutes/);
    expect(broken((m) => { m[0].style = 'casual'; })).toThrow(/style/);
    expect(broken((m) => { m.splice(m.findIndex((x: any) => x.slug === 'default'), 1); })).toThrow(/default/);
    const ps = (m: any[]) => m.find((x) => x.slug === 'product-sense');
    expect(broken((m) => { ps(m).questions[0].prompt = 'Too short.'; })).toThrow(/reducing-no-shows.*prompt/);
    expect(broken((m) => { ps(m).questions[0].guidance.follow_ups = ['Only one follow-up here?']; })).toThrow(/follow_ups/);
    expect(broken((m) => { ps(m).questions[1].slug = ps(m).questions[0].slug; })).toThrow(/twice/);
    expect(broken((m) => { ps(m).questions = undefined; })).toThrow(/nothing to ask/);
    expect(() => validateRoundMethods({}, taxonomy)).toThrow(RoundMethodError);
  });
});
