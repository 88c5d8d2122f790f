import type { ParseResult } from '../types.js';
import { SENIORITY_YEARS } from './levels.js';
import type { Requirement } from './requirements.js';
import { titleSimilarity } from './roles.js';
import { clamp01, monthIndex, round1, round2, uniqueEvidence, type Quoter } from './text.js';
import { coveredMonths, datedRoles, roleWithDates, type DatedRole } from './timeline.js';
import type { Evidence } from './types.js';
import type { SkillIndex } from './usage.js';

/** A role counts as relevant when its title is at least this close to the brief's role. */
const RELEVANT_TITLE = 0.5;
/** With neither years nor a level in the brief, a year of relevant work is enough for full credit. */
const DEFAULT_EXPECTED_YEARS = 1;
/** Share of the experience credit that total (not necessarily relevant) years can earn. */
const TOTAL_YEARS_CREDIT = 0.4;

export interface ExperienceFacts {
  roles: DatedRole[];
  totalYears: number;
  relevantYears: number;
  relevantRoles: DatedRole[];
  /** The years the brief asks for, as stated; null when it states none. */
  requiredYears: number | null;
  /** What the candidate is measured against: stated years, else what the level implies, else one year. */
  expectedYears: number;
  /** 0–1 credit: relevant years against expected (capped), plus some credit for total years. */
  fraction: number;
  evidence: Evidence[];
}

function relevantSkillNames(requirements: Requirement[]): Set<string> {
  const skills = requirements.filter((r) => r.kind === 'skill');
  const required = skills.filter((r) => r.importance === 'required');
  return new Set((required.length ? required : skills).map((r) => r.skill.name));
}

export function experienceFacts(
  result: ParseResult, asOf: number, role: string | null, requirements: Requirement[], skills: SkillIndex, quoter: Quoter,
): ExperienceFacts {
  const roles = datedRoles(result, asOf);
  const wantedSkills = relevantSkillNames(requirements);
  const judgeable = role !== null || wantedSkills.size > 0;
  const relevantRoles = roles.filter((r) => {
    if (!judgeable) return true;
    if (role !== null && r.entry.title && titleSimilarity(role, r.entry.title) >= RELEVANT_TITLE) return true;
    return [...(skills.byRole.get(r.position) ?? [])].some((name) => wantedSkills.has(name));
  });
  const fallbackMonths = Number.isFinite(result.parsed.total_experience_months) ? Math.max(0, result.parsed.total_experience_months) : 0;
  const totalMonths = roles.length ? coveredMonths(roles) : fallbackMonths;
  const relevantMonths = roles.length ? coveredMonths(relevantRoles) : judgeable ? 0 : fallbackMonths;

  const years = requirements.find((r) => r.kind === 'experience_years');
  const level = requirements.find((r) => r.kind === 'seniority');
  const requiredYears = years ? years.years : null;
  const expectedYears = requiredYears ?? (level ? SENIORITY_YEARS[level.level] : DEFAULT_EXPECTED_YEARS);
  const relevantShare = expectedYears > 0 ? clamp01(relevantMonths / 12 / expectedYears) : 1;
  const totalShare = expectedYears > 0 ? clamp01(totalMonths / 12 / expectedYears) : 1;
  const fraction = clamp01(relevantShare + (1 - relevantShare) * TOTAL_YEARS_CREDIT * totalShare);

  return {
    roles,
    totalYears: round1(totalMonths / 12),
    relevantYears: round1(relevantMonths / 12),
    relevantRoles,
    requiredYears,
    expectedYears,
    fraction,
    evidence: uniqueEvidence(relevantRoles.map((r) => quoter('experience', roleWithDates(r)))),
  };
}

export interface ClosestRole {
  score: number;
  title: string | null;
}

/** Recent roles count more: full weight for a role held within the year, down to half for one ended 5+ years ago. */
function recencyWeight(entry: ParseResult['parsed']['experience'][number], asOf: number): number {
  const end = entry.current ? asOf : monthIndex(entry.end) ?? monthIndex(entry.start);
  if (end === null) return 0.5;
  const yearsAgo = Math.max(0, (asOf - Math.min(end, asOf)) / 12);
  return Math.max(0.5, 1 - 0.1 * yearsAgo);
}

/** The experience title closest to the brief's role, similarity weighted by how recent the role is. */
export function closestRole(result: ParseResult, role: string, asOf: number): ClosestRole {
  let best: ClosestRole = { score: 0, title: null };
  for (const entry of result.parsed.experience) {
    if (!entry.title) continue;
    const score = titleSimilarity(role, entry.title) * recencyWeight(entry, asOf);
    if (score > best.score) best = { score, title: entry.title };
  }
  return { score: round2(best.score), title: best.title };
}
