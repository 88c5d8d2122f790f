/** The Resume object's schema: the parsed fields and the score, exactly as serialised. */
import { Type } from 'typebox';
import { Nullable, StringEnum, UnixSeconds, Uuid } from '../../platform/schemas.js';
import { DOCUMENT_CONTENT_TYPES } from '../../storage/file-type.js';

const YearMonth = Type.String({ pattern: '^\\d{4}-\\d{2}$', description: 'YYYY-MM' });
const Str = Type.String();

const SECTION_NAMES = ['summary', 'experience', 'education', 'skills', 'projects', 'certifications', 'languages', 'awards',
  'publications', 'volunteering', 'interests', 'contact', 'other'] as const;

const Parsed = Type.Object({
  name: Nullable(Str),
  email: Nullable(Str),
  phone: Nullable(Type.String({ description: 'E.164 when the number could be read, else as written' })),
  location: Nullable(Str),
  links: Type.Object({ linkedin: Nullable(Str), github: Nullable(Str), site: Nullable(Str) }),
  summary: Nullable(Str),
  experience: Type.Array(Type.Object({
    company: Nullable(Str), title: Nullable(Str), location: Nullable(Str), start: Nullable(YearMonth), end: Nullable(YearMonth),
    current: Type.Boolean(), bullets: Type.Array(Str),
  })),
  education: Type.Array(Type.Object({
    institution: Nullable(Str), degree: Nullable(Str), field: Nullable(Str), start: Nullable(YearMonth), end: Nullable(YearMonth),
  })),
  skills: Type.Array(Type.Object({
    name: Str, canonical: Nullable(Str),
    evidence: StringEnum(['listed', 'experience'], { description: 'listed in a skills section only, or used in dated experience' }),
  })),
  languages: Type.Array(Str),
  certifications: Type.Array(Str),
  total_experience_months: Type.Integer({ minimum: 0 }),
  sections_found: Type.Array(StringEnum(SECTION_NAMES)),
  warnings: Type.Array(Type.Object({ code: Str, message: Str })),
});

const Evidence = Type.Object({ section: Str, text: Str });
const Criterion = Type.Object({ score: Type.Number(), evidence: Type.Array(Evidence), notes: Type.Array(Str) });

const Narrative = Type.Object({
  status: StringEnum(['ok', 'failed']),
  model: Str,
  summary: Type.Optional(Str),
  strengths: Type.Optional(Type.Array(Str)),
  concerns: Type.Optional(Type.Array(Str)),
  reason: Type.Optional(Str),
});

const Score = Type.Object({
  overall: Type.Integer({ minimum: 0, maximum: 100 }),
  mode: StringEnum(['brief', 'standalone']),
  scorer_version: Str,
  brief_fingerprint: Str,
  role: Nullable(Str),
  requirements: Type.Array(Type.Object({
    requirement: Str,
    kind: StringEnum(['skill', 'experience_years', 'seniority', 'education']),
    importance: StringEnum(['required', 'preferred']),
    status: StringEnum(['matched', 'partial', 'missing']),
    match_type: Nullable(StringEnum(['exact', 'synonym', 'related'])),
    evidence: Type.Array(Evidence),
    points: Type.Number(),
    max_points: Type.Number(),
  })),
  experience_fit: Nullable(Type.Object({
    required_years: Nullable(Type.Number()), candidate_years: Type.Number(), relevant_years: Type.Number(),
    points: Type.Number(), max_points: Type.Number(), evidence: Type.Array(Evidence),
  })),
  role_similarity: Nullable(Type.Object({ score: Type.Number(), closest_title: Nullable(Str), points: Type.Number(), max_points: Type.Number() })),
  quality: Type.Object({ completeness: Criterion, quantified_achievements: Criterion, clarity_and_length: Criterion, date_consistency: Criterion }),
  ignored: Type.Array(Str),
  flags: Type.Array(Str),
  narrative: Nullable(Narrative),
  scored_at: UnixSeconds,
});

export const Resume = Type.Object({
  object: Type.Literal('resume'),
  id: Uuid,
  candidate_id: Uuid,
  livemode: Type.Boolean(),
  created_at: UnixSeconds,
  file: Type.Object({
    content_type: StringEnum(Object.values(DOCUMENT_CONTENT_TYPES)),
    size: Type.Integer({ minimum: 0 }),
    pages: Type.Integer({ minimum: 1 }),
  }),
  parsed: Parsed,
  score: Nullable(Score),
});
