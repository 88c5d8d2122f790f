import { createHash } from 'node:crypto';

/** What the candidate is scored against: a role title, a job description, or both (normalised text). */
export interface Brief {
  role: string | null;
  job_description: string | null;
}

/** Bumped only if the canonical form below changes; part of every fingerprint. */
const FINGERPRINT_FORM = 'prep-brief-2';

const collapseSpaces = (line: string) => line.replace(/[\p{Zs}\t]+/gu, ' ').trim();

function normaliseRole(raw: string | null | undefined): string | null {
  if (raw == null) return null;
  const text = collapseSpaces(raw.normalize('NFKC').replace(/\s+/g, ' '));
  return text === '' ? null : text;
}

/** Line breaks stay (they carry the JD's headings and lists); runs of blank lines become one. */
function normaliseJobDescription(raw: string | null | undefined): string | null {
  if (raw == null) return null;
  const lines = raw.normalize('NFKC').replace(/\r\n?|[\u2028\u2029\v\f]/g, '\n').split('\n').map(collapseSpaces);
  const text = lines.join('\n').replace(/\n{3,}/g, '\n\n').trim();
  return text === '' ? null : text;
}

/** The brief as given, normalised; null when neither a role nor a job description is given (standalone scoring). */
export function normaliseBrief(input: { role?: string | null; job_description?: string | null }): Brief | null {
  const role = normaliseRole(input.role);
  const jobDescription = normaliseJobDescription(input.job_description);
  return role === null && jobDescription === null ? null : { role, job_description: jobDescription };
}

/** The brief as the scorer reads it: its lines trimmed, spaces collapsed, blank lines gone (the JD's parser skips them). */
const canonicalText = (text: string | null) =>
  text === null ? null : text.normalize('NFKC').split(/\r\n?|[\n\u2028\u2029\v\f]/).map(collapseSpaces).filter((l) => l !== '').join('\n') || null;

/**
 * `sha256:<hex>` over the brief as the scorer reads it, so spacing and blank lines do not matter but any change it can
 * see does: wording, line breaks, and case ("Go" is the language, "go" a verb; a case-folded fingerprint returned
 * the stored score of "- Go, C and R" for "- go, c and r", which requires nothing). The standalone (null) brief hashes
 * the empty brief.
 */
export function briefFingerprint(brief: Brief | null): string {
  // JSON of a fixed-length array keeps the parts apart whatever they contain.
  const canonical = JSON.stringify([FINGERPRINT_FORM, canonicalText(brief?.role ?? null), canonicalText(brief?.job_description ?? null)]);
  return `sha256:${createHash('sha256').update(canonical, 'utf8').digest('hex')}`;
}
