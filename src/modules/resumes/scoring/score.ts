/**
 * The built-in resume scorer: deterministic, explainable, pure (no clock: the caller passes `asOf`; the skills
 * taxonomy is the catalogue's, loaded once by skills.ts).
 *
 * Weights, out of 100:
 *   With a brief (role and/or job description):
 *     requirements     60  shared across the extracted requirements, a required one weighing 2, a preferred one 1.
 *                          Each earns a share of its points: skill used in a dated role 100%; a closely related skill
 *                          used 50%; listed or mentioned but never shown in use 35%; seniority one level short 50%;
 *                          degree in another field 60%, a lower degree 40%. The years requirement earns what
 *                          experience fit earns (as a checklist item; experience fit measures the depth).
 *     experience fit   25  relevant years ÷ expected years (capped at 1), plus up to 40% of the rest for total years.
 *                          Expected: the JD's years, else what its level implies (senior 5, staff 8…), else 1.
 *     role similarity  15  closest experience title to the brief's role (0–1), weighted by how recent the role is.
 *     quality           0  reported for context only.
 *   A part with nothing to measure (no requirements found, no role given) drops out and the others scale up to 100.
 *   Standalone (no brief):
 *     completeness 30, quantified achievements 25, clarity and length 20, date consistency 25.
 *
 * Never scored: name, contact details, links, location, school names (see IGNORED). Evidence quotes and the text
 * scanned for skills are redacted of the name, email and links, so the same resume under another name scores the same.
 */
import { skillTaxonomy, type SkillTaxonomy } from '../skills.js';
import type { ParseResult } from '../types.js';
import { briefFingerprint, type Brief } from './brief.js';
import { closestRole, experienceFacts, type ExperienceFacts } from './experience.js';
import { matchEducation, matchSeniority, matchSkill, matchYears, type Match } from './match.js';
import { assessQuality } from './quality.js';
import { extractRequirements, type Requirement } from './requirements.js';
import { assertYearMonth, makeQuoter, round2, type Quoter } from './text.js';
import type { ExperienceFit, QualityReport, RequirementResult, ResumeScore, RoleSimilarity, ScoreOptions } from './types.js';
import { indexSkills, type SkillIndex } from './usage.js';

export const SCORER_VERSION = 'builtin-1';

const BRIEF_WEIGHTS = { requirements: 60, experience: 25, role: 15 } as const;
const STANDALONE_WEIGHTS: Record<keyof QualityReport, number> = {
  completeness: 30, quantified_achievements: 25, clarity_and_length: 20, date_consistency: 25,
};
const IMPORTANCE_WEIGHT = { required: 2, preferred: 1 } as const;

export const IGNORED: readonly string[] = [
  'name', 'photo', 'age and date of birth', 'gender and gendered words', 'marital status', 'address', 'nationality', 'school prestige',
];

/** Keyword stuffing: at least this many skills listed, and fewer than this share of them shown in use. */
const STUFFING = { minListed: 6, minEvidencedShare: 0.25 };

interface Context {
  result: ParseResult;
  taxonomy: SkillTaxonomy;
  skills: SkillIndex;
  facts: ExperienceFacts;
  quoter: Quoter;
}

function matchRequirement(req: Requirement, ctx: Context): Match {
  switch (req.kind) {
    case 'skill': return matchSkill(req, ctx.skills, ctx.taxonomy);
    case 'experience_years': return matchYears(req, ctx.facts);
    case 'seniority': return matchSeniority(req, ctx.facts, ctx.result, ctx.quoter);
    case 'education': return matchEducation(req, ctx.facts, ctx.result, ctx.quoter);
  }
}

function scoreRequirements(requirements: Requirement[], ctx: Context, pool: number): RequirementResult[] {
  const totalWeight = requirements.reduce((n, r) => n + IMPORTANCE_WEIGHT[r.importance], 0);
  return requirements.map((req) => {
    const match = matchRequirement(req, ctx);
    const maxPoints = totalWeight > 0 ? round2((pool * IMPORTANCE_WEIGHT[req.importance]) / totalWeight) : 0;
    return {
      requirement: req.label,
      kind: req.kind,
      importance: req.importance,
      status: match.status,
      match_type: match.match_type,
      evidence: match.evidence,
      points: round2(maxPoints * match.fraction),
      max_points: maxPoints,
    };
  });
}

/** The brief's parts that can be measured, their weights scaled to sum to 100. */
function briefPools(hasRequirements: boolean, hasRole: boolean) {
  const raw = {
    requirements: hasRequirements ? BRIEF_WEIGHTS.requirements : 0,
    experience: BRIEF_WEIGHTS.experience,
    role: hasRole ? BRIEF_WEIGHTS.role : 0,
  };
  const sum = raw.requirements + raw.experience + raw.role;
  return { requirements: (100 * raw.requirements) / sum, experience: (100 * raw.experience) / sum, role: (100 * raw.role) / sum };
}

function flagsFor(result: ParseResult, skills: SkillIndex, facts: ExperienceFacts, brief: Brief | null, requirements: Requirement[]): string[] {
  const codes = new Set(result.parsed.warnings.map((w) => w.code));
  const flags: string[] = [];
  if (codes.has('hidden_text') || codes.has('tiny_text')) flags.push('hidden_text_ignored');
  if (skills.listedCount >= STUFFING.minListed && skills.evidencedCount < STUFFING.minEvidencedShare * skills.listedCount) flags.push('keyword_stuffing');
  if (facts.roles.length === 0) flags.push('no_dated_experience');
  if (codes.has('unreadable_date')) flags.push('unreadable_dates');
  if (brief && requirements.length === 0) flags.push('no_requirements_found');
  return flags;
}

const clampOverall = (n: number) => Math.min(100, Math.max(0, Math.round(Number.isFinite(n) ? n : 0)));

/**
 * Score a parsed resume against a brief (or on its own when `brief` is null). Same inputs, same output: the current
 * month comes in as `options.asOf` (`YYYY-MM`).
 */
export function scoreResume(result: ParseResult, brief: Brief | null, options: ScoreOptions): ResumeScore {
  const asOf = assertYearMonth(options.asOf);
  const taxonomy = skillTaxonomy();
  const quoter = makeQuoter(result);
  const requirements = brief ? extractRequirements(brief, taxonomy) : [];
  const skills = indexSkills(result, taxonomy, quoter);
  const facts = experienceFacts(result, asOf, brief?.role ?? null, requirements, skills, quoter);
  const quality = assessQuality(result, asOf, quoter);
  const flags = flagsFor(result, skills, facts, brief, requirements);
  const assemble = (overall: number, parts: Pick<ResumeScore, 'requirements' | 'experience_fit' | 'role_similarity'>): ResumeScore => ({
    overall: clampOverall(overall),
    mode: brief ? 'brief' : 'standalone',
    scorer_version: SCORER_VERSION,
    brief_fingerprint: briefFingerprint(brief),
    role: brief?.role ?? null,
    ...parts,
    quality,
    ignored: [...IGNORED],
    flags,
  });

  if (!brief) {
    const overall = (Object.keys(STANDALONE_WEIGHTS) as (keyof QualityReport)[])
      .reduce((n, k) => n + (quality[k].score * STANDALONE_WEIGHTS[k]) / 100, 0);
    return assemble(overall, { requirements: [], experience_fit: null, role_similarity: null });
  }

  const pools = briefPools(requirements.length > 0, brief.role !== null);
  const ctx: Context = { result, taxonomy, skills, facts, quoter };
  const requirementResults = scoreRequirements(requirements, ctx, pools.requirements);
  const experienceMax = round2(pools.experience);
  const experienceFit: ExperienceFit = {
    required_years: facts.requiredYears,
    candidate_years: facts.totalYears,
    relevant_years: facts.relevantYears,
    points: round2(experienceMax * facts.fraction),
    max_points: experienceMax,
    evidence: facts.evidence,
  };
  let roleSimilarity: RoleSimilarity | null = null;
  if (brief.role !== null) {
    const closest = closestRole(result, brief.role, asOf);
    const max = round2(pools.role);
    roleSimilarity = { score: closest.score, closest_title: closest.title === null ? null : quoter('experience', closest.title).text, points: round2(max * closest.score), max_points: max };
  }
  const overall = requirementResults.reduce((n, r) => n + r.points, 0) + experienceFit.points + (roleSimilarity?.points ?? 0);
  return assemble(overall, { requirements: requirementResults, experience_fit: experienceFit, role_similarity: roleSimilarity });
}
