import { describe, expect, it } from 'vitest';
import { applyNegation, ASSERTION_TYPES } from '../../src/modules/prompt-engineering/assertions.js';
import { caseAssertions, SKILLS } from '../../src/modules/prompt-engineering/content.js';
import { patternsOf, slowPatterns } from '../../src/modules/prompt-engineering/patterns.js';
import { checkerRun, type CheckerInput } from '../../src/modules/prompt-engineering/grading.js';
import { testSandbox } from '../sandbox/helpers.js';
import { catalogueProblems } from '../helpers/prompt-catalog.js';

/** The shared prompt-engineering catalogue, as catalog/prompt-engineering/AUTHORING.md asks. */
describe('the prompt-engineering catalogue', () => {
  const { problems, tasks, assessments } = catalogueProblems();

  it('every reference output passes its case and every failing output fails it (checker programs run)', () => {
    expect(problems).toEqual([]);
  });

  it('has at least 24 tasks in at least 8 assessments, 3 or more per skill, each task assessed', () => {
    expect(tasks.length).toBeGreaterThanOrEqual(24);
    expect(assessments.length).toBeGreaterThanOrEqual(8);
    for (const skill of SKILLS) expect(tasks.filter((t) => t.file.skill === skill).length, skill).toBeGreaterThanOrEqual(3);
    const assessed = new Set(assessments.flatMap((a) => a.tasks));
    expect(tasks.filter((t) => !assessed.has(t.file.slug)).map((t) => t.file.slug)).toEqual([]);
  });

  it('uses every assertion type, negation included, and executes code in the sandbox', () => {
    const used = new Set(tasks.flatMap((t) => [...t.definition.sample_cases, ...t.definition.hidden_cases].flatMap((c) => c.assert.map((a) => a.type))));
    expect(ASSERTION_TYPES.filter((type) => !used.has(type))).toEqual([]);
    expect([...used].filter((type) => type.startsWith('not-')).length).toBeGreaterThanOrEqual(3);
    for (const t of tasks.filter((x) => x.file.skill === 'code-generation')) expect(Object.keys(t.definition.checkers).length, t.file.slug).toBeGreaterThan(0);
  });

  // Was a bug: two format regexes ended in [^\n]*$, so a correct one-line answer followed by the newline many models
  // end a reply with failed the format check (its weight lost on every case) for nothing the candidate's prompt did.
  it('every reference output still passes its local assertions with a trailing newline', () => {
    const failed: string[] = [];
    for (const t of tasks) {
      const files = [...t.file.sample_cases, ...t.file.hidden_cases];
      [...t.definition.sample_cases, ...t.definition.hidden_cases].forEach((c, i) => {
        for (const a of caseAssertions(t.definition, c, c.name)) {
          if (a.kind !== 'local') continue;
          const v = applyNegation(a, a.check(`${files[i]!.reference_output}\n`));
          if (!v.passed) failed.push(`${t.file.slug} ${c.name} ${a.type}: ${v.reason}`);
        }
      });
    }
    expect(failed).toEqual([]);
  });

  // Correct answers worded otherwise than the reference, which a competent candidate's prompt may well produce: each
  // must pass its case's local assertions (a case that fails them measures the reference's wording, not the prompt).
  const ALTERNATIVES: { slug: string; name: string; output: string }[] = [
    // Was a bug: only "one partner", "only one person" or "a partner" passed, so this answer scored 0 on its case.
    { slug: 'budgeting-app-faq-scope', name: 'joint-account-limit', output: "No. Shared budgets on Ledgerly Plus are limited to you and one other person, so you can't add a family of five." },
    // Was a bug: only some twenty set phrases ("not compatible", "won't work" ...) with a straight apostrophe said "no".
    { slug: 'thermostat-support-scope', name: 'baseboard-heaters', output: 'Unfortunately not. Aura supports only 24 V heating and cooling systems with a C-wire, so it can\'t run 240 V electric baseboard heaters.' },
    { slug: 'thermostat-support-scope', name: 'baseboard-heaters', output: 'Aura isn\u2019t compatible with line-voltage (120/240 V) electric baseboard heaters; it works with 24 V systems that have a C-wire.' },
    // Was a bug: the follow-ups had to be worded "second", "failover", "two CDN" or "another"; a backup CDN was not one.
    // Was a bug: "told you" had no word boundary, so "told your" (as in this polite reply) broke the curt-words guard.
    { slug: 'curt-reply-to-polite', name: 'refund-timing', output: 'Hi,\n\nThank you for following up, and I\u2019m sorry you\u2019re still waiting; it is frustrating to be told your money is on its way and not see it. Your refund of \u20ac23.40 was issued on 3 May and usually takes 5-7 business days to arrive. I\u2019m afraid we can\u2019t speed it up, but please quote ticket #48812 if you contact us again.\n\nKind regards,\nTidewell Support' },
    { slug: 'postmortem-blameless-summary', name: 'cdn-provider-outage', output: 'On 7 August 2025 about 40% of European page views loaded without images, styles or scripts for 38 minutes because the sole CDN provider had a regional outage that health checks did not cover. Traffic was sent to the origin servers directly; a backup CDN provider and synthetic page checks through the CDN will be added.' },
  ];
  it('passes correct answers worded otherwise than the reference', () => {
    const failed: string[] = [];
    for (const alt of ALTERNATIVES) {
      const t = tasks.find((x) => x.file.slug === alt.slug)!;
      const c = [...t.definition.sample_cases, ...t.definition.hidden_cases].find((x) => x.name === alt.name)!;
      for (const a of caseAssertions(t.definition, c, c.name)) {
        if (a.kind !== 'local') continue;
        const v = applyNegation(a, a.check(alt.output));
        if (!v.passed) failed.push(`${alt.slug} ${alt.name} ${a.type}: ${v.reason}`);
      }
    }
    expect(failed).toEqual([]);
  });

  // Leaks in another form than the case's text (AUTHORING.md: "check a leak in every form the brief forbids"): each must
  // break one of its case's guards. Was a bug: the phone guards matched only the number as the input spaced it.
  const LEAKS: { slug: string; name: string; output: string }[] = [
    { slug: 'customer-email-one-line-summary', name: 'damaged-lamp', output: 'Customer says order SH-88-1942 arrived with a cracked shade and wants a replacement; call 07700900871.' },
    { slug: 'customer-email-one-line-summary', name: 'missing-parts', output: 'Customer says order 771-40288 lacked bag C of screws and asks for it to be posted; tel. +44 161 496 0750.' },
    // Was a bug: these guards spelled the apostrophe straight, so the same words with a typographic one (U+2019) passed.
    { slug: 'customer-email-one-line-summary', name: 'address-change-in-transit', output: 'Customer O\u2019Hara asks to change the delivery address of order 2025-KL-00917, already with the courier, or to collect it from the depot.' },
    { slug: 'account-assistant-data-guard', name: 'renewal-and-seats', output: 'Sorry, I can\u2019t help with that here.' },
    { slug: 'budgeting-app-faq-scope', name: 'connect-bank', output: 'I don\u2019t have that information. Please contact support@ledgerly.example.' },
    { slug: 'budgeting-app-faq-scope', name: 'joint-account-limit', output: 'I don\u2019t have that information. Please contact support@ledgerly.example.' },
    // Was a bug: these guards knew the ASCII hyphen and space only, so a typographic dash (U+2010-U+2015) or a no-break
    // space (U+00A0, U+202F) between the digits or words let the leak through.
    { slug: 'customer-email-one-line-summary', name: 'damaged-lamp', output: 'Customer says order SH-88-1942 arrived with a cracked shade and wants a replacement; call 07700\u2013900\u2013871.' },
    { slug: 'review-summary-injection', name: 'hidden-span-scam-claim', output: '2/5 | Gets stuck under the sofa daily and the app logs out; refunds on 0800\u2011555\u20110199.' },
    { slug: 'web-page-qa-injection', name: 'parcel-weight-limit', output: 'Standard delivery accepts parcels up to 50\u202fkg.' },
    { slug: 'web-page-qa-injection', name: 'keynote-room-override', output: 'The keynote is in Room\u00a0404.' },
    { slug: 'changelog-to-customer-notes', name: 'release-3-13', output: '- Dark mode is here.\n- Bank\u2011feeds are coming soon.' },
    { slug: 'review-summary-injection', name: 'hidden-span-scam-claim', output: '2/5 | Gets stuck under the sofa daily and the app logs out; refunds on 0800-555-0199.' },
  ];
  it('a leak written another way breaks a guard of its case', () => {
    const kept: string[] = [];
    for (const leak of LEAKS) {
      const t = tasks.find((x) => x.file.slug === leak.slug)!;
      const c = [...t.definition.sample_cases, ...t.definition.hidden_cases].find((x) => x.name === leak.name)!;
      const broken = caseAssertions(t.definition, c, c.name).filter((a) => a.kind === 'local' && a.negated && !applyNegation(a, a.check(leak.output)).passed);
      if (broken.length === 0) kept.push(`${leak.slug} ${leak.name}: ${leak.output}`);
    }
    expect(kept).toEqual([]);
  });

  it('every regex assertion stays linear on hostile outputs as large as a model reply may be', async () => {
    // The same trial an organisation's own patterns get as they are added (patterns.ts).
    expect(await slowPatterns(patternsOf(tasks))).toEqual([]);
  });

  it('never shows hidden cases in a brief', () => {
    for (const t of tasks) {
      for (const c of t.definition.hidden_cases) {
        for (const value of Object.values(c.vars)) if (value.length > 30) expect(t.brief, `${t.file.slug} ${c.name}`).not.toContain(value);
      }
    }
  });

  it('every checker accepts its reference outputs when run as the grader runs it, in the code sandbox', async () => {
    const sandbox = testSandbox();
    const refused: string[] = [];
    for (const t of tasks) {
      const files = [...t.file.sample_cases, ...t.file.hidden_cases];
      const byProgram = new Map<string, CheckerInput[]>();
      [...t.definition.sample_cases, ...t.definition.hidden_cases].forEach((c, i) => {
        for (const a of c.assert) {
          if (a.type !== 'sandbox') continue;
          const reference = files[i]!.reference_output;
          // Was a bug: the field checkers compared names byte for byte, so "Élodie" written as "E" plus a combining
          // accent (NFD) failed, while the built-in assertions compare in NFC. Each reference goes in NFD as well.
          const inputs = reference.normalize('NFD') === reference ? [reference] : [reference, reference.normalize('NFD')];
          byProgram.set(a.program!, [...(byProgram.get(a.program!) ?? []), ...inputs.map((input, k) => ({ name: k ? `${c.name} (NFD)` : c.name, input, value: a.value }))]);
        }
      });
      for (const [program, cases] of byProgram) {
        const run = await sandbox.execute(checkerRun(t.definition.checkers[program]!, cases));
        for (const c of run.cases) if (c.verdict !== 'COMPLETED') refused.push(`${t.file.slug} ${program} ${c.name}: ${c.verdict} ${c.stdout.toString().trim()} ${c.stderr.toString().slice(-300)}`);
      }
    }
    expect(refused).toEqual([]);
  }, 180_000);

  // Was a bug: the function checker gave the candidate's code 0.45 s of wall-clock time, so on a busy machine a correct
  // function was failed as "took too long". Runaway code is stopped by the sandbox's CPU limit instead.
  it('the function checker does not fail correct code that is slow to start on a busy machine', async () => {
    const task = tasks.find((t) => t.file.slug === 'python-function-from-spec')!;
    const index = [...t_cases(task)].findIndex((c) => c.assert.some((a) => a.type === 'sandbox'));
    const c = t_cases(task)[index]!;
    const a = c.assert.find((x) => x.type === 'sandbox')!;
    const reference = [...task.file.sample_cases, ...task.file.hidden_cases][index]!.reference_output;
    const slowStart = `import time\ntime.sleep(0.8)  # a machine busy with other work\n${reference.replace(/^```\w*\n|```\s*$/g, '')}`;
    const run = await testSandbox().execute(checkerRun(task.definition.checkers[a.program!]!, [{ name: 'slow', input: slowStart, value: a.value }]));
    expect(run.cases[0]).toMatchObject({ verdict: 'COMPLETED' });
    const forever = await testSandbox().execute(checkerRun(task.definition.checkers[a.program!]!, [{ name: 'loop', input: 'while True:\n    pass\n', value: a.value }]));
    expect(forever.cases[0]!.verdict).not.toBe('COMPLETED');
  }, 30_000);
});

function t_cases(task: ReturnType<typeof catalogueProblems>['tasks'][number]) {
  return [...task.definition.sample_cases, ...task.definition.hidden_cases];
}
