import type { Skill, SkillTaxonomy } from '../skills.js';
import type { ParsedSkill, ParseResult } from '../types.js';
import { evidenceSections, foldText, monthIndex, type Quoter } from './text.js';
import type { Evidence } from './types.js';

export interface SkillUse {
  via: 'exact' | 'synonym';
  evidence: Evidence;
}

/** Where each skill (by taxonomy name) shows up in a resume. */
export interface SkillIndex {
  /** Used in a dated role: its title or bullets. */
  used: Map<string, SkillUse[]>;
  /** Seen anywhere else: a skills list, the summary, projects, an undated role. */
  mentioned: Map<string, SkillUse[]>;
  /** Skills used per dated role, by the role's position in `parsed.experience`. */
  byRole: Map<number, Set<string>>;
  /** Distinct skills the parser found, and how many of them are used in dated roles (for keyword stuffing). */
  listedCount: number;
  evidencedCount: number;
}

/** The uses already listed, per list: a resume of thousands of lines naming one skill must not compare each with all. */
const seen = new WeakMap<SkillUse[], Set<string>>();
const add = (map: Map<string, SkillUse[]>, name: string, use: SkillUse) => {
  const key = `${use.via}\u0000${use.evidence.text}`;
  const list = map.get(name);
  if (!list) {
    const created = [use];
    map.set(name, created);
    seen.set(created, new Set([key]));
  } else if (!seen.get(list)!.has(key)) {
    seen.get(list)!.add(key);
    list.push(use);
  }
};

function resolveParsedSkill(taxonomy: SkillTaxonomy, skill: ParsedSkill): { skill: Skill; via: 'exact' | 'synonym' } | null {
  const scanned = taxonomy.scan(skill.name)[0];
  if (scanned) return { skill: scanned.skill, via: scanned.via };
  const found = (skill.canonical ? taxonomy.lookup(skill.canonical) : null) ?? taxonomy.lookup(skill.name);
  if (!found) return null;
  return { skill: found, via: foldText(found.name) === foldText(skill.name) ? 'exact' : 'synonym' };
}

/**
 * Scans the redacted lines: a name that is also a skill ("Ruby") must not count as one. A skill counts once per line
 * (its first mention there): a line naming it a thousand times is one piece of evidence, not a thousand quotes.
 */
function scanLines(taxonomy: SkillTaxonomy, quoter: Quoter, lines: string[], onMention: (skill: Skill, via: SkillUse['via'], line: string, index: number) => void) {
  for (const line of lines.map(quoter.redact)) {
    const seenHere = new Set<string>();
    for (const m of taxonomy.scan(line)) {
      if (seenHere.has(m.skill.name)) continue;
      seenHere.add(m.skill.name);
      onMention(m.skill, m.via, line, m.index);
    }
  }
}

/**
 * A line that labels itself a list of keywords ("Keywords: Go Kubernetes …", "Tags: …"): written for a screening
 * filter, not a record of work, so the skills it names are mentioned, not used, even inside a dated role (such a
 * bullet scored a resume 100 with no stuffing flag).
 */
const KEYWORD_LINE = /^\s*(?:[-•*▪◦]\s*)?(?:key\s?words?|tags|buzzwords|search terms)\s*[:：]/i;

export function indexSkills(result: ParseResult, taxonomy: SkillTaxonomy, quoter: Quoter): SkillIndex {
  const used = new Map<string, SkillUse[]>();
  const mentioned = new Map<string, SkillUse[]>();
  const byRole = new Map<number, Set<string>>();
  const inKeywordLines = new Set<string>();

  result.parsed.experience.forEach((entry, position) => {
    const dated = monthIndex(entry.start) !== null;
    const lines = [entry.title ?? '', ...entry.bullets].filter((l) => l.trim() !== '');
    scanLines(taxonomy, quoter, lines, (skill, via, line, index) => {
      const keywords = KEYWORD_LINE.test(line);
      if (keywords) inKeywordLines.add(skill.name);
      const use = dated && !keywords;
      add(use ? used : mentioned, skill.name, { via, evidence: quoter.redacted('experience', line, index) });
      if (use) byRole.set(position, (byRole.get(position) ?? new Set()).add(skill.name));
    });
  });

  for (const section of evidenceSections(result)) {
    if (section.name === 'experience') continue;
    scanLines(taxonomy, quoter, section.lines, (skill, via, line, index) => add(mentioned, skill.name, { via, evidence: quoter.redacted(section.name, line, index) }));
  }

  // The parser's own judgement counts too: a skill it saw used in a role is used even if our scan missed the line.
  // The first experience line naming each skill, found in one pass (not one pass per skill the parser listed).
  const firstExperienceLine = new Map<string, string>();
  for (const line of evidenceSections(result).filter((s) => s.name === 'experience').flatMap((s) => s.lines).map(quoter.redact)) {
    if (KEYWORD_LINE.test(line)) continue;
    for (const m of taxonomy.scan(line)) if (!firstExperienceLine.has(m.skill.name)) firstExperienceLine.set(m.skill.name, line);
  }
  const listed = new Set<string>();
  let evidenced = 0;
  for (const parsedSkill of result.parsed.skills) {
    const key = foldText(parsedSkill.canonical ?? parsedSkill.name);
    if (key === '' || listed.has(key)) continue;
    listed.add(key);
    const resolved = resolveParsedSkill(taxonomy, parsedSkill);
    // The parser's "used in a role" stands unless our scan found the skill only in keyword lines.
    const keywordOnly = resolved !== null && inKeywordLines.has(resolved.skill.name) && !firstExperienceLine.has(resolved.skill.name);
    if (parsedSkill.evidence === 'experience' && resolved && !used.has(resolved.skill.name) && !keywordOnly) {
      const line = firstExperienceLine.get(resolved.skill.name);
      add(used, resolved.skill.name, { via: resolved.via, evidence: line === undefined ? quoter('experience', parsedSkill.name) : quoter.redacted('experience', line) });
    } else if (resolved && !used.has(resolved.skill.name) && !mentioned.has(resolved.skill.name)) {
      add(mentioned, resolved.skill.name, { via: resolved.via, evidence: quoter('skills', parsedSkill.name) });
    }
    if ((parsedSkill.evidence === 'experience' && !keywordOnly) || (resolved && used.has(resolved.skill.name))) evidenced++;
  }

  return { used, mentioned, byRole, listedCount: listed.size, evidencedCount: evidenced };
}
