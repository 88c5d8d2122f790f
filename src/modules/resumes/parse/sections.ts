/**
 * Section headings: known titles in any case or weight ("Work Experience", "TECHNICAL SKILLS", "Education:"), and
 * lines a format styles as headings. An unknown title counts only when it is unmistakably styled as one, so a bold
 * company name inside Experience never splits the section.
 */
import type { SectionName } from '../types.js';
import { BULLET, type Line } from './lines.js';

const TITLES: Record<Exclude<SectionName, 'other'>, string[]> = {
  summary: ['summary', 'professional summary', 'profile', 'professional profile', 'about', 'about me', 'objective', 'career objective',
    'overview', 'career summary', 'executive summary', 'personal statement', 'introduction'],
  experience: ['experience', 'work experience', 'professional experience', 'employment', 'employment history', 'work history',
    'career history', 'relevant experience', 'professional background', 'career', 'experience history', 'industry experience',
    'technical experience', 'positions held'],
  education: ['education', 'academic background', 'education and training', 'academic qualifications', 'education history',
    'educational background', 'academics', 'qualifications', 'academic history'],
  skills: ['skills', 'technical skills', 'core competencies', 'competencies', 'key skills', 'skills and tools', 'technologies',
    'tools', 'expertise', 'areas of expertise', 'skill set', 'skillset', 'tech stack', 'technical proficiencies', 'core skills',
    'skills summary', 'tools and technologies', 'technical expertise', 'professional skills', 'skills and expertise', 'toolbox'],
  projects: ['projects', 'personal projects', 'selected projects', 'key projects', 'side projects', 'project experience', 'open source'],
  certifications: ['certifications', 'certificates', 'licenses and certifications', 'licences and certifications', 'certifications and training',
    'training', 'courses', 'professional development', 'credentials'],
  languages: ['languages', 'spoken languages', 'language skills', 'language'],
  awards: ['awards', 'honors', 'honours', 'achievements', 'awards and honors', 'awards and honours', 'accomplishments'],
  publications: ['publications', 'papers', 'talks', 'publications and talks'],
  volunteering: ['volunteering', 'volunteer', 'volunteer experience', 'community', 'community involvement', 'leadership and volunteering'],
  interests: ['interests', 'hobbies', 'hobbies and interests'],
  contact: ['contact', 'contact information', 'contact details', 'personal details', 'personal information', 'details', 'links'],
};

const BY_TITLE = new Map<string, SectionName>();
for (const [name, titles] of Object.entries(TITLES)) for (const t of titles) BY_TITLE.set(t, name as SectionName);

const normalise = (text: string) => text.toLowerCase().replace(/&/g, ' and ').replace(/[^\p{L}\s]/gu, ' ').replace(/\s+/g, ' ').trim();

export interface Section {
  name: SectionName;
  heading: string | null;
  lines: Line[];
}

/** Whether a line of text is a known section title ("Work Experience", "SKILLS:"). */
export function isSectionTitle(text: string): boolean {
  return BY_TITLE.has(normalise(text));
}

function knownTitle(line: Line): SectionName | null {
  if (BULLET.test(line.text)) return null;
  const text = line.text.trim();
  // "Skills: Python, SQL" is content, "Skills:" a heading.
  if (/:\s*\S/.test(text) || text.split(/\s+/).length > 5 || text.length > 48) return null;
  return BY_TITLE.get(normalise(text)) ?? null;
}

function styledAsHeading(line: Line, bodySize: number, index: number): boolean {
  if (index === 0 || BULLET.test(line.text) || /\d/.test(line.text) || line.text.length > 40 || /[.,;]$/.test(line.text)) return false;
  if (line.heading && line.size < 20) return true;
  const upper = line.text === line.text.toUpperCase() && /\p{Lu}{3}/u.test(line.text);
  return upper && line.bold && line.size >= bodySize + 1;
}

export function bodySizeOf(lines: Line[]): number {
  const sizes = lines.map((l) => l.size).sort((a, b) => a - b);
  return sizes[Math.floor(sizes.length / 2)] ?? 10;
}

/** Lines before the first heading form the header (name, contact); the rest are grouped under their headings. */
export function splitSections(lines: Line[]): { header: Line[]; sections: Section[] } {
  const bodySize = bodySizeOf(lines);
  const header: Line[] = [];
  const sections: Section[] = [];
  let current: Line[] = header;
  lines.forEach((line, index) => {
    const known = knownTitle(line);
    if (known || styledAsHeading(line, bodySize, index)) {
      const section: Section = { name: known ?? 'other', heading: line.text.replace(/:$/, '').trim(), lines: [] };
      sections.push(section);
      current = section.lines;
    } else {
      if (line.columnStart) current = header; // a new column's text before its first heading: a header line (a subtitle, contact)
      current.push(line);
    }
  });
  return { header, sections };
}
