import type { SkillTaxonomy } from '../skills.js';
import type { ParseResult } from '../types.js';
import type { ExperienceFacts } from './experience.js';
import { candidateDegreeLevel, DEGREE_RANK, MANAGEMENT_LEVELS, SENIORITY_RANK, seniorityFromYears, titleSeniority, type SeniorityLevel } from './levels.js';
import type { EducationRequirement, SeniorityRequirement, SkillRequirement, YearsRequirement } from './requirements.js';
import { findLine, foldText, uniqueEvidence, type Quoter } from './text.js';
import { roleWithDates, type DatedRole } from './timeline.js';
import type { Evidence, MatchStatus, MatchType } from './types.js';
import type { SkillIndex, SkillUse } from './usage.js';

/** Share of a requirement's points each outcome earns. */
export const CREDIT = {
  used: 1,
  /** A closely related skill used in a dated role. */
  related: 0.5,
  /** Listed, or mentioned outside dated roles, but never shown in use. */
  listedOnly: 0.35,
  /** One level short, a degree in another field, a lower degree. */
  seniorityShort: 0.5,
  degreeOtherField: 0.6,
  lowerDegree: 0.4,
} as const;

export interface Match {
  status: MatchStatus;
  match_type: MatchType | null;
  fraction: number;
  evidence: Evidence[];
}

const missing: Match = { status: 'missing', match_type: null, fraction: 0, evidence: [] };

const viaOf = (uses: SkillUse[]): MatchType => (uses.some((u) => u.via === 'exact') ? 'exact' : 'synonym');
const evidenceOf = (uses: SkillUse[]) => uniqueEvidence([...uses].sort((a, b) => Number(a.via !== 'exact') - Number(b.via !== 'exact')).map((u) => u.evidence));

export function matchSkill(req: SkillRequirement, skills: SkillIndex, taxonomy: SkillTaxonomy): Match {
  const name = req.skill.name;
  const used = skills.used.get(name);
  if (used) return { status: 'matched', match_type: viaOf(used), fraction: CREDIT.used, evidence: evidenceOf(used) };
  const relatedUses = [...skills.used.entries()].filter(([other]) => other !== name && taxonomy.closelyRelated(name, other)).flatMap(([, uses]) => uses);
  if (relatedUses.length) return { status: 'partial', match_type: 'related', fraction: CREDIT.related, evidence: uniqueEvidence(relatedUses.map((u) => u.evidence)) };
  const listed = skills.mentioned.get(name);
  if (listed) return { status: 'partial', match_type: viaOf(listed), fraction: CREDIT.listedOnly, evidence: evidenceOf(listed) };
  return missing;
}

export function matchYears(req: YearsRequirement, facts: ExperienceFacts): Match {
  const fraction = req.years > 0 ? facts.fraction : 1;
  const status: MatchStatus = fraction >= 1 ? 'matched' : fraction > 0 ? 'partial' : 'missing';
  return { status, match_type: null, fraction, evidence: facts.evidence };
}

interface Titled { level: SeniorityLevel; title: string; role: DatedRole | null }

/** The role whose title states the highest level (first one on ties). */
function highestTitled(roles: DatedRole[], result: ParseResult): Titled | null {
  let best: Titled | null = null;
  for (const [position, entry] of result.parsed.experience.entries()) {
    const level = entry.title ? titleSeniority(entry.title) : null;
    if (!level || !entry.title) continue;
    if (!best || SENIORITY_RANK[level] > SENIORITY_RANK[best.level]) best = { level, title: entry.title, role: roles.find((r) => r.position === position) ?? null };
  }
  return best;
}

/** Titles say the level; years alone can vouch for up to senior. Management needs a management title. */
export function matchSeniority(req: SeniorityRequirement, facts: ExperienceFacts, result: ParseResult, quoter: Quoter): Match {
  const wanted = SENIORITY_RANK[req.level];
  const titled = highestTitled(facts.roles, result);
  const titledEvidence = titled ? [quoter('experience', titled.role ? roleWithDates(titled.role) : titled.title)] : [];
  const recentEvidence = uniqueEvidence(facts.roles.slice(0, 2).map((r) => quoter('experience', roleWithDates(r))));
  const titleRank = titled ? SENIORITY_RANK[titled.level] : 0;

  if (MANAGEMENT_LEVELS.includes(req.level)) {
    const managing = titled !== null && MANAGEMENT_LEVELS.includes(titled.level);
    if (managing && titleRank >= wanted) return { status: 'matched', match_type: null, fraction: 1, evidence: titledEvidence };
    if (titled && titleRank >= wanted - 2 && (managing || titled.level === 'lead' || titled.level === 'principal' || titled.level === 'staff')) {
      return { status: 'partial', match_type: null, fraction: CREDIT.seniorityShort, evidence: titledEvidence };
    }
    return missing;
  }
  if (titled && titleRank >= wanted) return { status: 'matched', match_type: null, fraction: 1, evidence: titledEvidence };
  const yearsRank = SENIORITY_RANK[seniorityFromYears(facts.totalYears)];
  if (yearsRank >= wanted) {
    // An unlabelled title with the years is the level; a title that says a lower level is only close.
    return titled ? { status: 'partial', match_type: null, fraction: CREDIT.seniorityShort, evidence: titledEvidence }
      : { status: 'matched', match_type: null, fraction: 1, evidence: recentEvidence };
  }
  if (Math.max(titleRank, yearsRank) === wanted - 1) {
    return { status: 'partial', match_type: null, fraction: CREDIT.seniorityShort, evidence: titled ? titledEvidence : recentEvidence };
  }
  return missing;
}

const FIELD_ABBREVIATIONS: [RegExp, string][] = [
  [/\bcs\b|\bcomp sci\b/g, 'computer science'],
  [/\bcse\b/g, 'computer science engineering'],
  [/\bee\b/g, 'electrical engineering'],
  [/\bit\b/g, 'information technology'],
  [/\bmath\b|\bmaths\b/g, 'mathematics'],
];
const expandField = (text: string) => FIELD_ABBREVIATIONS.reduce((t, [p, r]) => t.replace(p, r), foldText(text));

/** Years of work the JD's "or equivalent experience" stands for, per degree. */
const EQUIVALENT_YEARS = { degree: 2, bachelor: 4, master: 6, phd: 8 } as const;

export function matchEducation(req: EducationRequirement, facts: ExperienceFacts, result: ParseResult, quoter: Quoter): Match {
  const degrees = result.parsed.education
    .filter((e) => e.degree)
    .map((e) => ({ entry: e, level: candidateDegreeLevel(`${e.degree} ${e.field ?? ''}`) }))
    .filter((d): d is typeof d & { level: NonNullable<typeof d.level> } => d.level !== null);
  const line = (d: (typeof degrees)[number]) =>
    findLine(result, quoter, ['education'], d.entry.degree ?? '') ?? quoter('education', [d.entry.degree, d.entry.field].filter(Boolean).join(', '));
  const fieldMatches = (d: (typeof degrees)[number]) => {
    if (req.fields.length === 0) return true;
    const text = expandField(`${d.entry.degree ?? ''} ${d.entry.field ?? ''}`);
    return req.fields.some((f) => text.includes(expandField(f)));
  };
  const enough = degrees.filter((d) => DEGREE_RANK[d.level] >= DEGREE_RANK[req.level]);
  const fitting = enough.find(fieldMatches);
  if (fitting) return { status: 'matched', match_type: null, fraction: 1, evidence: [line(fitting)] };
  if (req.equivalentExperience && facts.totalYears >= EQUIVALENT_YEARS[req.level]) {
    return { status: 'matched', match_type: null, fraction: 1, evidence: uniqueEvidence(facts.roles.slice(0, 2).map((r) => quoter('experience', roleWithDates(r)))) };
  }
  if (enough.length) return { status: 'partial', match_type: null, fraction: CREDIT.degreeOtherField, evidence: [line(enough[0])] };
  if (degrees.length) return { status: 'partial', match_type: null, fraction: CREDIT.lowerDegree, evidence: [line(degrees[0])] };
  return missing;
}
