/** Skills: entries of a skills section, and mentions in the text; used in a dated role beats only listed. */
import type { ExperienceEntry, ParsedSkill } from '../types.js';
import { skillTaxonomy } from '../skills.js';
import { stripBullet, type Line } from './lines.js';

const SPLIT = /\s*[,;|•·●▪\t]\s*|\s+\/\s+|\s+and\s+|\s{3,}/;

// What rates a skill after its colon: "Python: 5 years", "Excel: expert".
const RATING = /^(?:\d+(?:\.\d+)?\s*\+?\s*(?:years?|yrs?|months?)\b|(?:advanced|expert|intermediate|beginner|basic|proficient|fluent|native|familiar|working knowledge|strong)\b)/i;
/** "Python: 5 years" → "Python"; null when the piece is no rated skill. */
const ratedSkill = (piece: string): string | null => {
  const m = /^([^:]{1,40}):\s*(.+)$/.exec(piece.trim());
  return m && RATING.test(m[2]) ? m[1] : null;
};

function entriesOf(lines: Line[]): string[] {
  const out: string[] = [];
  for (const line of lines) {
    // "Languages: Python, Go" → the list after the label; "Python: 5 years, Go: 3 years" → each skill, its rating dropped.
    const stripped = stripBullet(line.text);
    const text = ratedSkill(stripped.split(SPLIT)[0]) ? stripped : stripped.replace(/^[^:]{1,40}:\s*/, '');
    for (const written of text.split(SPLIT)) {
      const piece = ratedSkill(written) ?? written;
      const clean = piece.replace(/^[\s(]+|[\s).]+$/g, '').replace(/\s*\((?:[^)]*)\)$/, '').trim();
      if (clean) out.push(clean);
    }
  }
  return out;
}

/** Skills from the skills section (and other listing sections), then mentions in dated experience. */
export function readSkills(listing: Line[], experience: ExperienceEntry[], otherText: string[]): ParsedSkill[] {
  const taxonomy = skillTaxonomy();
  const skills = new Map<string, ParsedSkill>();
  const add = (name: string, canonical: string | null, evidence: ParsedSkill['evidence']) => {
    const key = (canonical ?? name).toLowerCase();
    const known = skills.get(key);
    if (!known) skills.set(key, { name, canonical, evidence });
    else if (evidence === 'experience') known.evidence = 'experience';
  };
  for (const entry of entriesOf(listing)) {
    const skill = taxonomy.lookup(entry);
    if (skill) {
      add(entry, skill.name, 'listed');
      continue;
    }
    const mentions = taxonomy.scan(entry);
    if (mentions.length) for (const m of mentions) add(m.matched, m.skill.name, 'listed');
    else if (entry.length <= 40 && entry.split(/\s+/).length <= 4 && /\p{L}/u.test(entry) && !/[@]|\d{3}/.test(entry)) add(entry, null, 'listed');
  }
  for (const entry of experience) {
    const dated = entry.start !== null;
    const text = [entry.title ?? '', ...entry.bullets].join('\n');
    for (const m of taxonomy.scan(text)) add(m.matched, m.skill.name, dated ? 'experience' : 'listed');
  }
  for (const text of otherText) for (const m of taxonomy.scan(text)) add(m.matched, m.skill.name, 'listed');
  return [...skills.values()];
}
