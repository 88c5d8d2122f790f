import type { DocumentContentType } from '../../storage/file-type.js';

/** The structured fields a resume is parsed into (the Resume object's `parsed`), shared by the parser and the scorer. */

/** `YYYY-MM`; a year alone is read as its January (a role's end year as its December) and flagged in `warnings`. */
export type YearMonth = string;

export interface ResumeLinks {
  linkedin: string | null;
  github: string | null;
  site: string | null;
}

export interface ExperienceEntry {
  company: string | null;
  title: string | null;
  location: string | null;
  start: YearMonth | null;
  end: YearMonth | null;
  /** The role is held now (`Present`, `Current`, `Now`); `end` is then null. */
  current: boolean;
  bullets: string[];
}

export interface EducationEntry {
  institution: string | null;
  degree: string | null;
  field: string | null;
  start: YearMonth | null;
  end: YearMonth | null;
}

/** Where a skill was seen: `listed` in a skills section only, or `experience` (used in a dated role's text). */
export type SkillEvidence = 'listed' | 'experience';

export interface ParsedSkill {
  /** As written in the resume (first occurrence). */
  name: string;
  /** The taxonomy's name for it, or null when the taxonomy does not know it. */
  canonical: string | null;
  evidence: SkillEvidence;
}

export type SectionName =
  | 'summary' | 'experience' | 'education' | 'skills' | 'projects' | 'certifications' | 'languages' | 'awards'
  | 'publications' | 'volunteering' | 'interests' | 'contact' | 'other';

export interface ResumeWarning {
  code:
    | 'two_column_layout' | 'no_contact_details' | 'unreadable_date' | 'hidden_text' | 'tiny_text'
    | 'year_only_date' | 'no_experience_section' | 'no_sections';
  message: string;
}

export interface ParsedResume {
  name: string | null;
  email: string | null;
  /** E.164 (`+14155550100`) when libphonenumber-js can read it, else as written. */
  phone: string | null;
  location: string | null;
  links: ResumeLinks;
  summary: string | null;
  experience: ExperienceEntry[];
  education: EducationEntry[];
  skills: ParsedSkill[];
  languages: string[];
  certifications: string[];
  total_experience_months: number;
  sections_found: SectionName[];
  warnings: ResumeWarning[];
}

export type ResumeContentType = DocumentContentType;

/** What parsing a file yields: the fields, the file's page count, and the readable text kept for scoring evidence. */
export interface ParseResult {
  contentType: ResumeContentType;
  pages: number;
  parsed: ParsedResume;
  /** The visible text by section, in reading order (hidden and tiny text left out). */
  sections: { name: SectionName; heading: string | null; lines: string[] }[];
}
