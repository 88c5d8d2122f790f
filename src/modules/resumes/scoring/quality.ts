import { skillTaxonomy } from '../skills.js';
import type { ParseResult } from '../types.js';
import { clamp01, evidenceSections, formatMonth, findLine, monthIndex, ratio, uniqueEvidence, type Quoter } from './text.js';
import { datedRoles, employmentGaps, fullTimeOverlaps, roleWithDates, type DatedRole } from './timeline.js';
import type { Criterion, Evidence, QualityReport } from './types.js';

/** A gap longer than this between roles is worth a note. */
const GAP_MONTHS = 6;
/** Half the bullets carrying a number is full marks for quantified achievements. */
const QUANTIFIED_FULL_MARKS = 0.5;
const BULLET_WORDS = { min: 6, max: 35 };
const WORDS = { min: 300, max: 900 };

const wordCount = (text: string) => text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
const bullets = (result: ParseResult) => result.parsed.experience.flatMap((e) => e.bullets).filter((b) => b.trim() !== '');

function completeness(result: ParseResult, quoter: Quoter): Criterion {
  const p = result.parsed;
  const has = (name: string) => evidenceSections(result).find((s) => s.name === name && s.lines.some((l) => l.trim() !== ''));
  const evidence: Evidence[] = [];
  const notes: string[] = [];
  const check = (label: string, present: boolean, proof: Evidence | null) => {
    if (!present) notes.push(`missing: ${label}`);
    else if (proof) evidence.push(proof);
    return present;
  };
  // Contact details count by presence only and are never quoted: who the candidate is must not show in the score.
  const parts = [
    check('contact details', !!(p.email || p.phone || p.links.linkedin || p.links.github || p.links.site), null),
    check('summary', !!p.summary?.trim() || !!has('summary'), p.summary?.trim() ? quoter('summary', p.summary) : null),
    check('experience', p.experience.length > 0, p.experience[0]?.title ? quoter('experience', p.experience[0].title) : null),
    check('education', p.education.length > 0, p.education[0]?.degree ? findLine(result, quoter, ['education'], p.education[0].degree) ?? quoter('education', p.education[0].degree) : null),
    check('skills', p.skills.length > 0 || !!has('skills'), has('skills') ? quoter('skills', has('skills')!.lines[0]) : p.skills[0] ? quoter('skills', p.skills.map((s) => s.name).join(', ')) : null),
  ];
  if (notes.length === 0) notes.push('contact details, summary, experience, education and skills are all present');
  return { score: Math.round((100 * parts.filter(Boolean).length) / parts.length), evidence, notes };
}

/** A skill's version right after its name: "Python 3.11", "Angular 12", "OAuth 2.0" (".11" after the synonym "Python 3"). */
const VERSION_AFTER = /^(?:\.\d+)*(?:\s*v?\d+(?:\.\d+)*)?(?:\.x)?\+?(?![\d%\p{L}])/iu;

/** The bullet with its skill names and the versions written after them blanked ("OAuth 2.0", "Python 3.11"). */
function withoutSkillNames(bullet: string): string {
  if (!/\d/.test(bullet)) return bullet;
  let out = '';
  let from = 0;
  for (const m of skillTaxonomy().scan(bullet)) {
    if (m.index < from) continue;
    const end = m.index + m.matched.length;
    const version = VERSION_AFTER.exec(bullet.slice(end))?.[0] ?? '';
    out += `${bullet.slice(from, m.index)} `;
    from = end + version.length;
  }
  return out + bullet.slice(from);
}

/**
 * A number that is not just a year, a percentage, a currency amount, or a counted word ("doubled", "three teams").
 * Digits in a name (EC2, S3, k8s, IPv6, B2B, Q3) and a skill's version ("Python 3.11") are no quantity.
 */
export function isQuantified(bullet: string): boolean {
  const withoutYears = withoutSkillNames(bullet).replace(/\b(19|20)\d{2}\b/g, ' ');
  return /(?<!\p{L})\d|%|[$€£¥₹]/u.test(withoutYears) ||
    /\b(two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|dozens?|hundreds?|thousands?|millions?|billions?|doubled|tripled|halved)\b/i.test(withoutYears);
}

function quantifiedAchievements(result: ParseResult, quoter: Quoter): Criterion {
  const all = bullets(result);
  if (all.length === 0) return { score: 0, evidence: [], notes: ['no experience bullets to quantify'] };
  const quantified = all.filter(isQuantified);
  const share = ratio(quantified.length, all.length);
  return {
    score: Math.round(100 * clamp01(share / QUANTIFIED_FULL_MARKS)),
    evidence: uniqueEvidence(quantified.map((b) => quoter('experience', b))),
    notes: [`${quantified.length} of ${all.length} bullets quantified (${Math.round(share * 100)}%)`],
  };
}

function wordCountScore(words: number): number {
  if (words < WORDS.min) return 100 * ratio(words, WORDS.min);
  if (words <= WORDS.max) return 100;
  return Math.max(30, 100 - (words - WORDS.max) / 10);
}

const pageScore = (pages: number) => (pages <= 2 ? 100 : pages === 3 ? 60 : 30);

function clarityAndLength(result: ParseResult, quoter: Quoter): Criterion {
  const all = bullets(result);
  const long = all.filter((b) => wordCount(b) > BULLET_WORDS.max);
  const short = all.filter((b) => wordCount(b) < BULLET_WORDS.min);
  const bulletScore = all.length ? 100 * (1 - ratio(long.length + short.length, all.length)) : 0;
  const words = evidenceSections(result).flatMap((s) => s.lines).reduce((n, l) => n + wordCount(quoter.redact(l)), 0);
  const pages = Math.max(1, Number.isFinite(result.pages) ? Math.round(result.pages) : 1);
  const notes = [`${words} words`, `${pages} page${pages === 1 ? '' : 's'}${pages > 2 ? ' (1–2 is ideal)' : ''}`];
  if (all.length === 0) notes.push('no experience bullets');
  if (long.length) notes.push(`${long.length} of ${all.length} bullets longer than ${BULLET_WORDS.max} words`);
  if (short.length) notes.push(`${short.length} of ${all.length} bullets shorter than ${BULLET_WORDS.min} words`);
  return {
    score: Math.round((bulletScore + wordCountScore(words) + pageScore(pages)) / 3),
    evidence: uniqueEvidence(long.map((b) => quoter('experience', b)), 2),
    notes,
  };
}

const PENALTY = { gap: 15, overlap: 15, reversed: 20, undated: 10 };
/** Findings of one kind noted one by one; past this many (the score is 0 long before) the rest are counted. */
const LISTED_MAX = 10;

function dateConsistency(result: ParseResult, asOf: number, quoter: Quoter): Criterion {
  const entries = result.parsed.experience;
  if (entries.length === 0) return { score: 0, evidence: [], notes: ['no experience entries'] };
  const roles = datedRoles(result, asOf);
  if (roles.length === 0) return { score: 0, evidence: [], notes: ['no role has a readable start date'] };
  const dated = (r: DatedRole) => quoter('experience', roleWithDates(r));
  const evidence: Evidence[] = [];
  const notes: string[] = [];
  let penalty = 0;

  const gaps = employmentGaps(roles, GAP_MONTHS);
  penalty += PENALTY.gap * gaps.length;
  for (const gap of gaps.slice(0, LISTED_MAX)) {
    notes.push(`gap of ${gap.months} months between ${gap.from} and ${gap.to}`);
    const before = roles.find((r) => formatMonth(r.end) === gap.from);
    const after = roles.find((r) => formatMonth(r.start) === gap.to);
    evidence.push(...[before, after].filter((r) => r !== undefined).map(dated));
  }
  if (gaps.length > LISTED_MAX) notes.push(`${gaps.length - LISTED_MAX} more gaps over ${GAP_MONTHS} months`);
  const overlaps = fullTimeOverlaps(roles, LISTED_MAX + 1);
  penalty += PENALTY.overlap * overlaps.length;
  for (const o of overlaps.slice(0, LISTED_MAX)) {
    notes.push(`overlapping full-time roles from ${o.from} to ${o.to} (${o.months} months)`);
    evidence.push(dated(o.a), dated(o.b));
  }
  if (overlaps.length > LISTED_MAX) notes.push('more overlapping full-time roles');
  const reversed = roles.filter((x) => x.reversed);
  penalty += PENALTY.reversed * reversed.length;
  for (const r of reversed.slice(0, LISTED_MAX)) {
    notes.push(`end date before start date: ${r.entry.start} – ${r.entry.end}`);
    evidence.push(dated(r));
  }
  if (reversed.length > LISTED_MAX) notes.push(`${reversed.length - LISTED_MAX} more roles ending before they start`);
  const undated = entries.filter((e) => monthIndex(e.start) === null).length;
  if (undated > 0) {
    penalty += PENALTY.undated * undated;
    notes.push(`${undated} role${undated === 1 ? '' : 's'} without a readable start date`);
  }
  // A job not begun yet (an incoming role) is no experience, and nothing wrong either.
  const upcoming = entries.length - undated - roles.length;
  if (upcoming > 0) notes.push(`${upcoming} role${upcoming === 1 ? '' : 's'} starting after ${formatMonth(asOf)} (not counted)`);
  if (notes.length === 0) notes.push(`no gaps over ${GAP_MONTHS} months and no overlapping full-time roles`);
  return { score: Math.max(0, 100 - penalty), evidence: uniqueEvidence(evidence, 8), notes };
}

export function assessQuality(result: ParseResult, asOf: number, quoter: Quoter): QualityReport {
  return {
    completeness: completeness(result, quoter),
    quantified_achievements: quantifiedAchievements(result, quoter),
    clarity_and_length: clarityAndLength(result, quoter),
    date_consistency: dateConsistency(result, asOf, quoter),
  };
}
