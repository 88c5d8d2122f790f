import type { Importance } from './types.js';

/** A sentence (or part of one) of a job description with the importance its place in the text gives it. */
export interface Clause {
  text: string;
  importance: Importance;
}

const PREFERRED_HEADING = /^(nice[- ]to[- ]haves?|preferred|bonus|pluses|plus|desirable|good[- ]to[- ]haves?|extra credit|ideally|it'?s a plus|would be (nice|great)|additional (qualifications|skills)|even better|optional)\b/;
const REQUIRED_HEADING = /^(requirements?|required|minimum (qualifications|requirements)|basic qualifications|qualifications|must[- ]haves?|what you('ll| will)? (need|bring)|what we('re| are) looking for|you have|you should have|you will have|who you are|about you|skills|key (skills|requirements)|essential|experience)\b/;
// Parts about the company and the offer: nothing in them is asked of the candidate.
const COMPANY_HEADING = /^(about (us|the company|company|[a-z]+ inc)|who we are|benefits|perks|what we offer|what('s| is) in it for you|why (join|us|work)|compensation|salary|how to apply|our (values|mission|culture)|equal (opportunity|employment)|eeo|diversity)\b/;
const NEUTRAL_HEADING = /^(about|responsibilities|what you('ll| will) do|your (role|responsibilities|day|mission)|the role|role overview|overview|location|our (stack|tech stack|team)|tech stack|the team|the job|description|job description|summary)\b/;
const COMPANY_SENTENCE = /^(we offer|we provide|you('ll| will) get|you get|we are an equal)\b/;
// "We're hiring", "the hiring manager": the skill Hiring is not being asked for.
const HIRING_PHRASE = /\b(?:(?:we['’]re|we are|is|are|now) hiring|hiring (?:manager|team|process))\b/gi;

/** The clause with phrases that look like skills but are not asked of the candidate blanked out (same length). */
export const skillScanText = (text: string) => text.replace(HIRING_PHRASE, (m) => ' '.repeat(m.length));

// "a plus" with a word between ("a strong plus", "a definite plus"); "an asset", "helpful", "beneficial" as what a skill
// is ("build helpful tools" is no preference); what is said not to be needed ("helpful but not essential": "essential"
// there asks for nothing).
const NOT_NEEDED = /\bnot (?:strictly )?(?:required|essential|mandatory|necessary|needed|a must)\b/g;
const PREFERRED_MARKER = /\b(preferred|preferably|an? (?:[a-z-]+ )?plus|nice[- ]to[- ]have|bonus|desirable|ideally|advantageous|an advantage|good to have|would be great|optional|(?:is|are|be) (?:(?:very|also|especially|highly|particularly|really) )?(?:beneficial|helpful|appreciated)|(?:is|are|be|as) an? (?:[a-z-]+ )?asset)\b|\bnot (?:strictly )?(?:required|essential|mandatory|necessary|needed|a must)\b/;
const REQUIRED_MARKER = /\b(required|must|mandatory|essential|need to have)\b/;
const INLINE_LABEL = /^(nice[- ]to[- ]haves?|preferred(?: qualifications| skills)?|bonus(?: points)?|pluses|plus|must[- ]haves?|required(?: skills)?|requirements)\s*[:：]\s*(.+)$/i;

const BULLET = /^\s*([-•*·▪◦‣●–]|\d{1,2}[.)])\s+/;

const fold = (s: string) => s.toLowerCase().replace(/’/g, "'");

type Part = Importance | 'neutral' | 'company';

function headingImportance(heading: string): Part | null {
  const h = fold(heading);
  if (COMPANY_HEADING.test(h)) return 'company';
  if (PREFERRED_HEADING.test(h)) return 'preferred';
  if (REQUIRED_HEADING.test(h)) return 'required';
  if (NEUTRAL_HEADING.test(h)) return 'neutral';
  return null;
}

// Words a heading may carry besides its key phrase ("Preferred Skills and Experience").
const HEADING_FILLER = /^(\s+|skills?|qualifications?|requirements?|experience|and|&|points|for|the|this|role|position|you|to|have|a|\(s\))*$/i;
const HEADING_PATTERNS = [COMPANY_HEADING, PREFERRED_HEADING, REQUIRED_HEADING, NEUTRAL_HEADING];

/** The line is nothing but a known heading phrase: "Nice to have", not "Experience with Go". */
const isBareHeading = (text: string) =>
  HEADING_PATTERNS.some((p) => {
    const m = p.exec(fold(text));
    return m !== null && HEADING_FILLER.test(fold(text).slice(m[0].length));
  });

/**
 * A line that introduces a part of the JD: not a list item, and either a known heading phrase alone or a marked-up
 * line ("## Life at Acme"). A short line ending with a colon but saying more ("Experience with Kafka and Redis:")
 * introduces a list without changing the part: `part` null, and its `text` is read like any other line.
 */
function asHeading(line: string): { part: Part | null; text: string | null } | null {
  if (BULLET.test(line)) return null;
  const markedUp = /^#{1,6}\s|^\*\*.*\*\*:?$|^__.*__:?$/.test(line);
  const text = line.replace(/^#{1,6}\s+/, '').replace(/^(\*\*|__)|(\*\*|__)(?=:?$)/g, '').trim();
  const colon = /[:：]$/.test(text);
  const bare = text.replace(/[:：]$/, '').trim();
  if (bare === '' || bare.split(/\s+/).length > 8 || /[.!?]$/.test(bare)) return null;
  const known = headingImportance(bare);
  if (known !== null && isBareHeading(bare)) return { part: known, text: null };
  if (markedUp) return { part: known ?? 'neutral', text: bare };
  return colon ? { part: null, text: bare } : null;
}

/** A sentence's own wording overrides its part of the JD ("Go is a plus" under "Requirements" is preferred). */
function sentenceClauses(sentence: string, inherited: Importance): Clause[] {
  const f = fold(sentence);
  const preferred = PREFERRED_MARKER.test(f);
  const required = REQUIRED_MARKER.test(f.replace(NOT_NEEDED, ' '));
  if (preferred && required) {
    // "Python required, Go preferred": judge each comma-separated part on its own.
    const parts = sentence.split(/,\s*|;\s*|\s+but\s+/).filter((p) => p.trim() !== '');
    if (parts.length < 2) return [{ text: sentence, importance: 'required' }];
    return parts.flatMap((part) => sentenceClauses(part, inherited));
  }
  return [{ text: sentence, importance: preferred ? 'preferred' : required ? 'required' : inherited }];
}

/**
 * Split a JD into clauses, each with the importance of its heading, inline label and wording (default: required).
 * The parts about the company and its offer (benefits, "about us") are left out.
 */
export function jobDescriptionClauses(jd: string): Clause[] {
  let context: Importance | 'company' = 'required';
  const clauses: Clause[] = [];
  for (const rawLine of jd.split('\n')) {
    const line = rawLine.trim();
    if (line === '') continue;
    const heading = asHeading(line);
    if (heading !== null) {
      if (heading.part !== null) context = heading.part === 'neutral' ? 'required' : heading.part;
      if (heading.text !== null && context !== 'company') clauses.push(...sentenceClauses(heading.text, context));
      continue;
    }
    if (context === 'company') continue;
    let body = line.replace(BULLET, '');
    let lineImportance = context;
    const label = INLINE_LABEL.exec(body.replace(/’/g, "'"));
    if (label) {
      lineImportance = headingImportance(label[1]) === 'preferred' ? 'preferred' : 'required';
      body = body.slice(body.length - label[2].length);
    }
    for (const sentence of body.split(/(?<=[.;!?])\s+/).map((s) => s.trim())) {
      if (sentence !== '' && !COMPANY_SENTENCE.test(fold(sentence))) clauses.push(...sentenceClauses(sentence, lineImportance));
    }
  }
  return clauses;
}
