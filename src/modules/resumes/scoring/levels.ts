/** Seniority levels and degree levels, read from titles, job descriptions and education entries. */

export type SeniorityLevel = 'junior' | 'mid' | 'senior' | 'lead' | 'staff' | 'principal' | 'manager' | 'director';

/** Individual-contributor and management levels on one ladder, for "at least this level" comparisons. */
export const SENIORITY_RANK: Record<SeniorityLevel, number> = {
  junior: 1, mid: 2, senior: 3, lead: 4, staff: 4, manager: 4, principal: 5, director: 6,
};

/** Years of experience a level usually implies: the expectation when a brief names a level but no years. */
export const SENIORITY_YEARS: Record<SeniorityLevel, number> = {
  junior: 0, mid: 2, senior: 5, lead: 6, staff: 8, manager: 6, principal: 10, director: 10,
};

export const MANAGEMENT_LEVELS: readonly SeniorityLevel[] = ['manager', 'director'];

/** Titles where "manager" names a function, not a people-management level. */
const FUNCTIONAL_MANAGER = /\b(product|project|program|programme|account|marketing|sales|office|community|content|success|case|property|social media|release|brand)\s+manager\b/i;

/** The level a job title states, highest first ("Senior Engineering Manager" is a manager); null when it states none. */
export function titleSeniority(title: string): SeniorityLevel | null {
  const t = title.toLowerCase();
  if (/\b(director|vp|vice president|head of|chief|cto|cio)\b/.test(t)) return 'director';
  if (/\bmanager\b/.test(t) && !FUNCTIONAL_MANAGER.test(t)) return 'manager';
  if (/\bprincipal\b/.test(t)) return 'principal';
  if (/\bstaff\b/.test(t)) return 'staff';
  if (/\b(lead|leader)\b/.test(t)) return 'lead';
  if (/\b(senior|sr|snr)\b\.?/.test(t)) return 'senior';
  if (/\b(mid[- ]?level|intermediate|mid)\b/.test(t)) return 'mid';
  if (/\b(junior|jr|entry[- ]level|graduate|intern|trainee|apprentice)\b/.test(t)) return 'junior';
  return null;
}

const JD_LEVEL = /\b(?:hiring|seeking|looking for|join (?:us|our team) as|this is|as|you are|you're)\s+an?\s+(junior|mid[- ]level|senior|staff|principal|lead)\b|\b(junior|mid|senior|staff|principal)[- ]level\b/i;

/** A level stated in a job description's prose ("we're hiring a senior…", "senior-level"), not "mentor junior engineers". */
export function proseSeniority(text: string): SeniorityLevel | null {
  const m = JD_LEVEL.exec(text);
  if (!m) return null;
  const word = (m[1] ?? m[2]).toLowerCase().replace(/[- ]level$/, '');
  return word === 'mid' ? 'mid' : (word as SeniorityLevel);
}

/** Years implied by time alone, capped at senior: years never make someone staff or a manager. */
export function seniorityFromYears(years: number): SeniorityLevel {
  if (years >= 5) return 'senior';
  if (years >= 2) return 'mid';
  return 'junior';
}

export type DegreeLevel = 'degree' | 'bachelor' | 'master' | 'phd';

export const DEGREE_RANK: Record<DegreeLevel, number> = { degree: 1, bachelor: 2, master: 3, phd: 4 };

export const DEGREE_LABEL: Record<DegreeLevel, string> = {
  degree: 'Degree', bachelor: "Bachelor's degree", master: "Master's degree", phd: 'PhD',
};

const PHD = /\bph\.?\s?d\b|\bdoctor(ate|al)\b|\bd\.?phil\b/;
const MASTER = /\bmaster'?s\b|\bmaster\s+(degree|of)\b|\bm\.?sc\b|\bm\.s\.|\bm\.?eng\b|\bmba\b|\bm\.a\.|\b(ms|ma)\b(?=\s+(in|degree|of)\b)/;
const BACHELOR = /\bbachelor'?s?\b|\bb\.?sc\b|\bb\.s\.|\bb\.?eng\b|\bb\.?tech\b|\bb\.a\.|\b(bs|ba)\b(?=\s+(in|degree|of)\b)|\b(bs|ba)\s*\/\s*(ms|bs|ba|ma)\b|\bundergraduate degree\b/;
const ANY_DEGREE = /\bdegree\b(?!\s+of\b)|\bdiploma\b|\bassociate'?s\b/;

/** The lowest degree level a job description's clause asks for ("Bachelor's or Master's" → bachelor), or null. */
export function requiredDegreeLevel(text: string): DegreeLevel | null {
  const t = text.toLowerCase().replace(/’/g, "'");
  if (BACHELOR.test(t)) return 'bachelor';
  if (MASTER.test(t)) return 'master';
  if (PHD.test(t)) return 'phd';
  if (ANY_DEGREE.test(t)) return 'degree';
  return null;
}

/** The level of a degree as a resume writes it ("BSc", "M.S.", "PhD"); any other non-empty degree is a degree. */
export function candidateDegreeLevel(degree: string): DegreeLevel | null {
  const t = degree.toLowerCase().replace(/’/g, "'");
  if (PHD.test(t)) return 'phd';
  if (MASTER.test(t) || /^\s*(ms|ma|msc|meng)\b/.test(t)) return 'master';
  if (BACHELOR.test(t) || /^\s*(bs|ba|bsc|beng|btech|ab)\b/.test(t)) return 'bachelor';
  return t.trim() === '' ? null : 'degree';
}
