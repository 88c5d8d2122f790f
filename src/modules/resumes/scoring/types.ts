import type { SectionName } from '../types.js';

/** A line quoted from the resume (≤ 200 characters) and where it was found. */
export interface Evidence {
  section: SectionName | 'header';
  text: string;
}

export type RequirementKind = 'skill' | 'experience_years' | 'seniority' | 'education';
export type Importance = 'required' | 'preferred';
export type MatchStatus = 'matched' | 'partial' | 'missing';
export type MatchType = 'exact' | 'synonym' | 'related';

export interface RequirementResult {
  requirement: string;
  kind: RequirementKind;
  importance: Importance;
  status: MatchStatus;
  match_type: MatchType | null;
  evidence: Evidence[];
  points: number;
  max_points: number;
}

export interface ExperienceFit {
  required_years: number | null;
  candidate_years: number;
  relevant_years: number;
  points: number;
  max_points: number;
  evidence: Evidence[];
}

export interface RoleSimilarity {
  /** 0–1, two decimals. */
  score: number;
  closest_title: string | null;
  points: number;
  max_points: number;
}

export interface Criterion {
  /** 0–100. */
  score: number;
  evidence: Evidence[];
  notes: string[];
}

export interface QualityReport {
  completeness: Criterion;
  quantified_achievements: Criterion;
  clarity_and_length: Criterion;
  date_consistency: Criterion;
}

export interface ResumeScore {
  /** 0–100 integer. */
  overall: number;
  mode: 'brief' | 'standalone';
  scorer_version: string;
  brief_fingerprint: string;
  role: string | null;
  requirements: RequirementResult[];
  experience_fit: ExperienceFit | null;
  role_similarity: RoleSimilarity | null;
  quality: QualityReport;
  ignored: string[];
  flags: string[];
}

export interface ScoreOptions {
  /** The current month, `YYYY-MM`: the end of roles held now. Passed in so that scoring never reads the clock. */
  asOf: string;
}
