/** Job-title similarity: seniority words dropped, abbreviations expanded, titles grouped into families. */

const SENIORITY_WORDS = new Set([
  'senior', 'sr', 'snr', 'junior', 'jr', 'lead', 'staff', 'principal', 'mid', 'level', 'intern', 'associate', 'graduate',
  'trainee', 'i', 'ii', 'iii', 'iv', 'v', '1', '2', '3', '4', 'entry', 'chief', 'head', 'of', 'and', 'the', 'a', 'an', '&', '-',
]);

const PHRASES: [RegExp, string][] = [
  [/\bswe\b|\bsde\b/g, 'software engineer'],
  [/\bsre\b/g, 'site reliability engineer'],
  [/\bml\b/g, 'machine learning'],
  [/\bai\b/g, 'machine learning'],
  [/\bqa\b/g, 'quality assurance'],
  [/\bux\b|\bui\b/g, 'design'],
  [/\bfront[- ]?end\b/g, 'frontend'],
  [/\bback[- ]?end\b/g, 'backend'],
  [/\bfull[- ]?stack\b/g, 'fullstack'],
  [/\bdev[- ]?ops\b/g, 'devops'],
  [/\beng\b/g, 'engineer'],
  [/\bdevelopers?\b|\bprogrammers?\b|\bengineers?\b/g, 'engineer'],
  [/\bmgr\b/g, 'manager'],
  [/\bpm\b/g, 'product manager'],
];

/** Lower case, abbreviations expanded, "developer"/"programmer" read as "engineer", seniority words left out. */
export function titleTokens(title: string): string[] {
  let t = title.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}&+#/ -]+/gu, ' ').replace(/[/,]/g, ' ');
  for (const [pattern, replacement] of PHRASES) t = t.replace(pattern, replacement);
  return [...new Set(t.split(/\s+/).filter((w) => w !== '' && !SENIORITY_WORDS.has(w)))];
}

type Family =
  | 'software' | 'backend' | 'frontend' | 'fullstack' | 'mobile' | 'devops' | 'data_science' | 'ml_engineering'
  | 'data_engineering' | 'data_analysis' | 'quality' | 'security' | 'engineering_management' | 'product' | 'design';

/** First match wins, so the more specific families come first. */
const FAMILIES: [Family, RegExp][] = [
  ['engineering_management', /\b(engineering|software|development) manager\b|\bmanager engineering\b|\bengineering director\b|\bdirector engineering\b|\bvp engineering\b/],
  ['devops', /\b(devops|site reliability|platform|infrastructure|cloud|systems reliability|production) engineer\b|\bdevops\b/],
  ['data_science', /\bdata scientist\b|\bdata science\b|\bresearch scientist\b/],
  ['ml_engineering', /\bmachine learning\b|\b(deep learning|mlops|nlp|computer vision)\b/],
  ['data_engineering', /\bdata engineer\b|\b(etl|analytics|big data) engineer\b/],
  ['data_analysis', /\b(data|business|analytics|bi) analyst\b/],
  ['security', /\bsecurity\b/],
  ['quality', /\bquality assurance\b|\b(test|testing|automation) engineer\b|\bsdet\b/],
  ['mobile', /\b(mobile|ios|android)\b/],
  ['frontend', /\bfrontend\b|\bweb (engineer|designer)\b/],
  ['backend', /\bbackend\b|\b(api|server side) engineer\b/],
  ['fullstack', /\bfullstack\b/],
  ['product', /\bproduct (manager|owner)\b/],
  ['design', /\b(design|designer)\b/],
  ['software', /\bsoftware development engineer\b|\b(software|application|applications|systems|computer|java|python|golang|\.net|c\+\+|ruby|php|javascript|typescript|web) engineer\b|^engineer$/],
];

/** Families that are neighbours: a different title, much the same work. */
const RELATED: [Family, Family][] = [
  ['software', 'backend'], ['software', 'frontend'], ['software', 'fullstack'], ['software', 'mobile'],
  ['backend', 'fullstack'], ['frontend', 'fullstack'], ['backend', 'devops'], ['software', 'devops'],
  ['data_science', 'ml_engineering'], ['data_science', 'data_analysis'], ['data_engineering', 'ml_engineering'],
  ['data_engineering', 'backend'], ['data_engineering', 'data_science'], ['software', 'quality'], ['software', 'ml_engineering'],
  ['devops', 'security'], ['engineering_management', 'software'],
];

const SAME_FAMILY = 0.9;
const RELATED_FAMILY = 0.6;

function family(tokens: string[]): Family | null {
  const phrases = [tokens.join(' '), qualifierFirst(tokens)];
  return FAMILIES.find(([, pattern]) => phrases.some((p) => pattern.test(p)))?.[0] ?? null;
}

// "Engineer, Platform" reads as "platform engineer".
const qualifierFirst = (tokens: string[]) => {
  const rest = tokens.filter((t) => !['engineer', 'manager', 'scientist', 'analyst', 'designer'].includes(t));
  const roles = tokens.filter((t) => ['engineer', 'manager', 'scientist', 'analyst', 'designer'].includes(t));
  return [...rest, ...roles].join(' ');
};

const jaccard = (a: string[], b: string[]) => {
  const bs = new Set(b);
  const shared = a.filter((t) => bs.has(t)).length;
  const union = new Set([...a, ...b]).size;
  return union === 0 ? 0 : shared / union;
};

/** 0–1: exactly the same words (seniority aside) 1; same family ("SWE" vs "Software Developer") 0.9; neighbours 0.6; else word overlap. */
export function titleSimilarity(a: string, b: string): number {
  const ta = titleTokens(a);
  const tb = titleTokens(b);
  if (ta.length === 0 || tb.length === 0) return 0;
  const overlap = jaccard(ta, tb);
  if (overlap === 1) return 1;
  const fa = family(ta);
  const fb = family(tb);
  if (fa !== null && fa === fb) return Math.max(SAME_FAMILY, overlap);
  if (fa !== null && fb !== null && RELATED.some(([x, y]) => (x === fa && y === fb) || (x === fb && y === fa))) return Math.max(RELATED_FAMILY, overlap);
  return overlap;
}
