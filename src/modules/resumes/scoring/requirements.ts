import { skillTaxonomy, type Skill, type SkillTaxonomy } from '../skills.js';
import type { Brief } from './brief.js';
import { jobDescriptionClauses, skillScanText, type Clause } from './jd.js';
import { DEGREE_LABEL, proseSeniority, requiredDegreeLevel, titleSeniority, type DegreeLevel, type SeniorityLevel } from './levels.js';
import type { Importance } from './types.js';

export interface SkillRequirement { kind: 'skill'; label: string; importance: Importance; skill: Skill }
export interface YearsRequirement { kind: 'experience_years'; label: string; importance: Importance; years: number; upTo: number | null }
export interface SeniorityRequirement { kind: 'seniority'; label: string; importance: Importance; level: SeniorityLevel }
export interface EducationRequirement {
  kind: 'education';
  label: string;
  importance: Importance;
  level: DegreeLevel;
  /** Acceptable fields ("Computer Science", "Engineering"); empty when any field will do. */
  fields: string[];
  equivalentExperience: boolean;
}
export type Requirement = SkillRequirement | YearsRequirement | SeniorityRequirement | EducationRequirement;

const stronger = (a: Importance, b: Importance): Importance => (a === 'required' || b === 'required' ? 'required' : 'preferred');

// ---- skills ----

// In a role title, a discipline ("Backend" in "Backend Engineer") is the role itself, which role similarity scores.
const DISCIPLINE = /\b(development|engineering|science|design|management|analysis|analytics|operations|devops|administration)\b/i;

function skillRequirements(taxonomy: SkillTaxonomy, role: string | null, clauses: Clause[]): SkillRequirement[] {
  const byName = new Map<string, SkillRequirement>();
  const fromRole: Clause[] = role ? [{ text: role, importance: 'required' }] : [];
  for (const clause of [...fromRole, ...clauses]) {
    // A degree's field ("MSc in Statistics") is the education requirement's, not a skill of its own.
    const fields = requiredDegreeLevel(clause.text) ? new Set(degreeFields(clause.text).map((f) => f.toLowerCase())) : null;
    for (const mention of taxonomy.scan(skillScanText(clause.text))) {
      if (fields?.has(mention.matched.toLowerCase())) continue;
      if (clause === fromRole[0] && DISCIPLINE.test(mention.skill.name)) continue;
      const known = byName.get(mention.skill.name);
      if (known) known.importance = stronger(known.importance, clause.importance);
      else byName.set(mention.skill.name, { kind: 'skill', label: mention.skill.name, importance: clause.importance, skill: mention.skill });
    }
  }
  return [...byName.values()];
}

// ---- years ----

const NUMBER_WORDS: Record<string, number> = {
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, twenty: 20,
};
const NUM = `(\\d{1,2}|${Object.keys(NUMBER_WORDS).join('|')})`;
const YEARS = new RegExp(`\\b${NUM}\\s*(?:\\+|plus)?\\s*(?:(?:-|–|—|to)\\s*${NUM}\\s*\\+?\\s*)?(?:years?|yrs?)\\b`, 'gi');
// "10 years ago", "in the last 3 years", "5 years old": time, not a requirement.
const NOT_A_REQUIREMENT_BEFORE = /\b(last|past|next|within|over the|for the|first|since)\s*$/i;
const NOT_A_REQUIREMENT_AFTER = /^\s*(ago|old|running|in a row)\b/i;

const readNumber = (raw: string) => (/^\d+$/.test(raw) ? Number(raw) : NUMBER_WORDS[raw.toLowerCase()] ?? NaN);

function yearsRequirement(clauses: Clause[]): YearsRequirement | null {
  let best: { years: number; upTo: number | null; importance: Importance } | null = null;
  for (const clause of clauses) {
    for (const m of clause.text.matchAll(YEARS)) {
      const before = clause.text.slice(0, m.index);
      const after = clause.text.slice(m.index + m[0].length);
      if (NOT_A_REQUIREMENT_BEFORE.test(before) || NOT_A_REQUIREMENT_AFTER.test(after)) continue;
      const years = readNumber(m[1]);
      const upTo = m[2] ? readNumber(m[2]) : null;
      if (!Number.isFinite(years) || years > 30) continue;
      const candidate = { years, upTo: upTo !== null && Number.isFinite(upTo) && upTo > years ? upTo : null, importance: clause.importance };
      // The largest minimum in the required parts wins; preferred parts count only when nothing is required.
      if (!best || (candidate.importance === 'required' && best.importance === 'preferred') ||
          (candidate.importance === best.importance && candidate.years > best.years)) best = candidate;
    }
  }
  if (!best) return null;
  const label = best.upTo !== null ? `${best.years}–${best.upTo} years of experience` : `${best.years}+ years of experience`;
  return { kind: 'experience_years', label, importance: best.importance, years: best.years, upTo: best.upTo };
}

// ---- seniority ----

function seniorityRequirement(role: string | null, clauses: Clause[]): SeniorityRequirement | null {
  const fromRole = role ? titleSeniority(role) : null;
  const fromText = fromRole ? null : clauses.map((c) => proseSeniority(c.text)).find((l) => l !== null) ?? null;
  const level = fromRole ?? fromText;
  return level ? { kind: 'seniority', label: `Seniority: ${level}`, importance: 'required', level } : null;
}

// ---- education ----

const EQUIVALENT = /\bequivalent\b|\bcomparable experience\b|\bin lieu of\b/i;
const VAGUE_FIELD = /\b(related|relevant|technical|quantitative|stem|similar|any)\b/i;

/** The fields after "in" ("…in Computer Science, Engineering, or a related field" → ["Computer Science", "Engineering"]). */
function degreeFields(clause: string): string[] {
  const m = /\bin\s+([^.;:()]+)/i.exec(clause.replace(/’/g, "'"));
  if (!m) return [];
  const head = m[1].split(/\s+or\s+(?:an?\s+)?(?:related|similar|relevant|equivalent|comparable)\b|\s+or\s+equivalent\b|,?\s+(?:and|with|plus|preferably|from|or\s+\d)\b/i)[0];
  return head
    .split(/\s*(?:,|\/|\bor\b|&)\s*/i)
    .map((f) => f.replace(/^(a|an|the)\s+/i, '').trim())
    .filter((f) => f !== '' && f.split(/\s+/).length <= 5 && !VAGUE_FIELD.test(f) && !/^(degree|field)$/i.test(f));
}

function educationRequirement(clauses: Clause[]): EducationRequirement | null {
  let found: EducationRequirement | null = null;
  for (const clause of clauses) {
    const level = requiredDegreeLevel(clause.text);
    if (level === null) continue;
    if (found) {
      found.importance = stronger(found.importance, clause.importance);
      continue;
    }
    const fields = degreeFields(clause.text);
    const equivalentExperience = EQUIVALENT.test(clause.text);
    const label = `${DEGREE_LABEL[level]}${fields.length ? ` in ${fields.join(' or ')}` : ''}${equivalentExperience ? ' (or equivalent experience)' : ''}`;
    found = { kind: 'education', label, importance: clause.importance, level, fields, equivalentExperience };
  }
  return found;
}

/**
 * What a brief asks for: skills (role title and JD, in order of first mention), the years of experience, the
 * seniority and the degree, each required or preferred by where the JD says it.
 */
export function extractRequirements(brief: Brief, taxonomy: SkillTaxonomy = skillTaxonomy()): Requirement[] {
  const clauses = brief.job_description ? jobDescriptionClauses(brief.job_description) : [];
  const out: Requirement[] = [...skillRequirements(taxonomy, brief.role, clauses)];
  const years = yearsRequirement(clauses);
  if (years) out.push(years);
  const seniority = seniorityRequirement(brief.role, clauses);
  if (seniority) out.push(seniority);
  const education = educationRequirement(clauses);
  if (education) out.push(education);
  return out;
}
