import { readFileSync } from 'node:fs';

/**
 * The skills taxonomy (catalog/skills/skills.json, a modified subset of O*NET Technology Skills under CC BY 4.0):
 * canonical names with category, synonyms and related skills, a lookup for skills-list entries and a scanner for
 * mentions in free text. Names and synonyms are compared by key: their tokens lowercased and joined, so "React.js",
 * "ReactJS" and "react js" are one key while "C", "C++", "C#" and ".NET" stay apart.
 */
export interface Skill {
  name: string;
  category: string;
  synonyms: string[];
  related: string[];
  ambiguous: boolean;
}

export interface SkillMention {
  skill: Skill;
  matched: string;
  index: number;
  via: 'exact' | 'synonym';
}

export interface SkillTaxonomy {
  readonly skills: readonly Skill[];
  /** A skills-list entry (e.g. "k8s", "React.js", " node "): exact name or synonym, case- and punctuation-insensitive; null if unknown. */
  lookup(term: string): Skill | null;
  /** Every mention in free text, in order, longest match first at a position (so "Ruby on Rails" wins over "Ruby"), whole tokens only (so "Java" is not found in "JavaScript", "Go" not in "Google"); ambiguous skills only with exact capitalisation. */
  scan(text: string): SkillMention[];
  /** true when a and b (canonical names) are listed as related (symmetric) or share a category; false for unknown names. */
  related(a: string, b: string): boolean;
  /** true only when listed as related (symmetric) — stronger than same category. */
  closelyRelated(a: string, b: string): boolean;
}

interface SkillEntry {
  name: string;
  category: string;
  synonyms?: string[];
  /** Synonyms that, like an ambiguous skill's name, match free text only as written ("Node", "Spark", "Rails"). */
  ambiguous_synonyms?: string[];
  related?: string[];
  ambiguous?: boolean;
  /**
   * Forms (the name or synonyms, as written) that are also everyday capitalised words ("Excel at…", "Word of mouth",
   * "Pastry Chef"): in free text they count only in context, next to another skill in a list ("Excel, SQL and
   * Tableau"), after a word such as "in" or "using", or near one of `context` ("Chef cookbooks").
   */
  common_words?: string[];
  /**
   * Forms whose capital says they are the skill only mid-sentence and before a lower-case word ("built services in Go",
   * "a Rust rewrite"): starting a sentence or line ("Go live", "Rust prevention") or before a capitalised word, as in a
   * title or a name ("Swift Turnaround Award", "Elm Street"), they need the context a common word needs.
   */
  sentence_words?: string[];
  /**
   * Words before a sentence word that make it the everyday word ("let Go of", "No Go", "Pokémon Go"), unless one of
   * its context words or another skill follows it.
   */
  everyday_after?: string[];
  /**
   * Words (lower case) right after a sentence word that make it the everyday word whatever follows ("Go live", "Go Live
   * workflows"): a phrase of the everyday word, not a use of the language.
   */
  everyday_before?: string[];
  /**
   * Context words (lower case) that are plural nouns of what the language builds ("workflows", "services", "CLIs"):
   * after the sentence word and one capitalised word that is no skill ("Go Temporal workflows", "Go Cobra CLIs"), that
   * word is a library or product the language was used with, not a name ("Elm Street", "Go Live").
   */
  plural_uses?: string[];
  /** Words (lower case) that, within two words of a common-word or sentence-word form, say the skill is meant. */
  context?: string[];
  /**
   * Forms (the name or synonyms, as written) whose plural with "s" is the skill too ("Lambda": "Wrote Go Lambdas"). Only
   * where the plural says nothing else: one word of at least two letters, not a common or sentence word ("Gos", "Rs",
   * "Sparks", "Swifts" are not listed) and not already another form ("Pandas"). Listed, not derived: the plural of
   * many names is an everyday word or verb ("Oracles", "Nodes", "reacts", "Initiatives").
   */
  plurals?: string[];
}

/** A text's tokens as parallel arrays (a scan makes thousands; objects would cost more than the matching). */
interface Tokens {
  start: number[];
  end: number[];
  lower: string[];
}

/**
 * One way of writing a skill. In free text its tokens must split as listed (`shape`, the tokens' lengths), so
 * "React JS" finds React.js but "in design" is not InDesign; `exact` (its letters as written) is set when the text
 * must also match its capitalisation.
 */
interface Form {
  skill: Skill;
  via: 'exact' | 'synonym';
  shape: string;
  exact: string | null;
  /** Words near it that make a common-word form the skill; null when the form needs no context. */
  context: Set<string> | null;
  /** A sentence word: it needs its context only where a capital says nothing (a sentence's start, before a capitalised word). */
  capitalSuffices: boolean;
  /** A sentence word's `everyday_after`: the end of the text before it that makes it the everyday word. */
  everydayAfter: RegExp | null;
  /** A sentence word's `everyday_before`: the words right after it that make it the everyday word. */
  everydayBefore: Set<string> | null;
  /** A sentence word's `plural_uses`: plural nouns that, one capitalised word after it, say the language is meant. */
  pluralUses: Set<string> | null;
}

const FILE = new URL('../../../catalog/skills/skills.json', import.meta.url);

// Letters and digits, with a trailing "++" or "#" (C++, C#) and a leading dot when it starts a word (.NET).
const TOKEN = /(?:(?<![\p{L}\p{N}])\.)?[\p{L}\p{N}]+(?:\+\+|#)?/gu;
// URLs and e-mail addresses are blanked before a scan: "github.com/ann" is not a GitHub skill.
const WEB_ADDRESS = /\b(?:https?:\/\/|www\.)\S+/gi;
const DOMAIN_PATH = /(?<![\w.-])[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|io|dev|me)\/\S*/gi;
const EMAIL = /(?<![\p{LC}\p{M}\p{N}_.+-])[\p{LC}\p{M}\p{N}_.+-]+@[\p{LC}\p{M}\p{N}_-]+(?:\.[\p{LC}\p{M}\p{N}_-]+)+/gu;
// A one-letter skill (C, R) is not one after or before these words: "Series C", "Vitamin C", "C level".
const LETTER_AFTER = new Set(['series', 'vitamin', 'grade', 'plan', 'class', 'type', 'section', 'part', 'level', 'tier', 'phase', 'round', 'option', 'appendix', 'block', 'building', 'gate', 'row', 'unit', 'category', 'group', 'team', 'exhibit', 'schedule', 'form', 'hepatitis', 'model', 'size', 'room', 'floor', 'wing', 'suite']);
const LETTER_BEFORE = new Set(['level', 'suite', 'corp', 'grade', 'class', 'rating', 'rated', 'section', 'series', 'major', 'minor', 'flat', 'sharp', 'wing', 'block']);
const MAX_TOKENS = 8;
// A common-word form right after one of these is the tool: "in Excel", "using Chef", "via Outlook".
const TOOL_BEFORE = new Set(['in', 'into', 'using', 'use', 'used', 'uses', 'via', 'with', 'through', 'on']);
// Between two skills of a list: "Excel, SQL", "Chef / Puppet", "Excel and Word", "Excel (VBA)".
const LIST_GAP = /^[ \t,;/&|+()]*(?:\b(?:and|or)\b)?[ \t,;/&|+()]*$/i;
const CONTEXT_WINDOW = 2;
const UPPER = /\p{Lu}/u;
// What before a word makes it the first of a sentence, where a capital says nothing: a line break, a tab (a column),
// a bar, or the end of a sentence (". ", "! ", "? ", also after a closing quote or bracket).
const SENTENCE_BREAK = /[\n\t|]|[.!?]["'’”)\]]*\s+$/;
// A capitalised word (not an acronym such as API or CLI): after it, a capital says nothing ("Go Live", "Elm Street").
const CAPITALISED = /^\p{Lu}\p{Ll}/u;
// Right after a sentence word, these say the skill is meant: "Go preferred", "Rust experience", "Swift skills".
const QUALIFIER_AFTER = new Set(['preferred', 'required', 'experience', 'knowledge', 'skills', 'proficiency', 'expertise', 'familiarity', 'background', 'essential', 'desirable', 'mandatory']);
// A sentence word after "the" that ends its phrase is a noun, not the language: "Snacks On The Go", "coffee on the Go."
const THE_BEFORE = /[^\p{L}\p{N}']the\s+$/u;
const PHRASE_END = /^[^\S\n]*[.,;:!?)\]"'”’\n]/;
// How far around a sentence word those are looked for: a bounded window, so a long line costs no more per mention.
const EVERYDAY_WINDOW = 32;
// A form alone on its line but for a bullet and a full stop or comma.
const ALONE_BEFORE = /^\s*(?:[-•*·▪◦‣●–]\s*)?$/;
const ALONE_AFTER = /^[\s.,;]*$/;

/**
 * What lies between two tokens. TIGHT (nothing, or one of . - _ &) glues them into one word: Node.js, scikit-learn,
 * R&D. SOFT (spaces with at most one line break, or a slash) lets a name run on: Ruby on Rails, CI/CD. BREAK ends it.
 */
const BREAK = 0;
const SOFT = 1;
const TIGHT = 2;

const isSpace = (c: number): boolean =>
  c === 32 || c === 9 || c === 13 || c === 160 || c === 11 || c === 12 || (c >= 0x2000 && c <= 0x200a) || c === 0x202f || c === 0x205f || c === 0x3000;

function gapKind(text: string, from: number, to: number): number {
  if (from === to) return TIGHT;
  if (to - from === 1) {
    const c = text.charCodeAt(from);
    if (c === 46 || c === 45 || c === 95 || c === 38) return TIGHT;
    return c === 47 || c === 10 || isSpace(c) ? SOFT : BREAK;
  }
  let newlines = 0;
  let slashes = 0;
  for (let k = from; k < to; k++) {
    const c = text.charCodeAt(k);
    if (c === 10) newlines++;
    else if (c === 47) slashes++;
    else if (!isSpace(c)) return BREAK;
  }
  return slashes > 1 || newlines > 1 ? BREAK : SOFT;
}

function tokenize(text: string): Tokens {
  const tokens: Tokens = { start: [], end: [], lower: [] };
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m; m = TOKEN.exec(text)) {
    tokens.start.push(m.index);
    tokens.end.push(m.index + m[0].length);
    tokens.lower.push(m[0].toLowerCase());
  }
  return tokens;
}

const keyOf = (term: string): string => tokenize(term.normalize('NFKC')).lower.join('');
const shapeOf = (tokens: Tokens, first: number, last: number): string => tokens.lower.slice(first, last + 1).map((t) => t.length).join(',');
const lettersOf = (text: string, tokens: Tokens, first: number, last: number): string => {
  let out = '';
  for (let k = first; k <= last; k++) out += text.slice(tokens.start[k], tokens.end[k]);
  return out;
};

function blankLinks(text: string): string {
  const blank = (m: string) => ' '.repeat(m.length);
  if (/:\/\/|www\./i.test(text)) text = text.replace(WEB_ADDRESS, blank);
  if (/\.(?:com|org|io|dev|me)\//i.test(text)) text = text.replace(DOMAIN_PATH, blank);
  if (text.includes('@')) text = text.replace(EMAIL, blank);
  return text;
}

class Taxonomy implements SkillTaxonomy {
  readonly skills: readonly Skill[];
  private readonly byKey = new Map<string, Skill>();
  private readonly byName = new Map<string, Skill>();
  private readonly relatedTo = new Map<Skill, Set<Skill>>();
  private readonly forms = new Map<string, Form[]>();
  private readonly prefixes = new Set<string>();

  constructor(entries: SkillEntry[]) {
    const skills = entries.map((e): Skill => ({
      name: e.name, category: e.category, synonyms: [...(e.synonyms ?? [])], related: [...(e.related ?? [])], ambiguous: e.ambiguous === true,
    }));
    const plurals: { skill: Skill; form: string; strict: boolean }[] = [];
    for (const [i, skill] of skills.entries()) {
      if (this.byName.has(skill.name)) throw new Error(`skills.json: ${skill.name} is listed twice`);
      this.byName.set(skill.name, skill);
      this.relatedTo.set(skill, new Set());
      const caseSensitive = new Set(entries[i].ambiguous_synonyms ?? []);
      const commonWords = new Set(entries[i].common_words ?? []);
      const sentenceWords = new Set(entries[i].sentence_words ?? []);
      for (const w of [...commonWords, ...sentenceWords]) {
        if (w !== skill.name && !skill.synonyms.includes(w)) throw new Error(`skills.json: ${skill.name}: common or sentence word ${w} is not its name or a synonym`);
        if (commonWords.has(w) && sentenceWords.has(w)) throw new Error(`skills.json: ${skill.name}: ${w} is both a common and a sentence word`);
      }
      if ((commonWords.size || sentenceWords.size) && !entries[i].context?.length) throw new Error(`skills.json: ${skill.name}: common or sentence words need context words`);
      const everydayWords = entries[i].everyday_after ?? [];
      if (everydayWords.length && !sentenceWords.size) throw new Error(`skills.json: ${skill.name}: everyday_after needs sentence words`);
      const everydayAfter = everydayWords.length
        ? new RegExp(`[^\\p{L}\\p{N}'](?:${everydayWords.map((w) => w.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})\\s+$`, 'u')
        : null;
      const context = new Set((entries[i].context ?? []).map((w) => w.toLowerCase()));
      const everydayBefore = new Set(entries[i].everyday_before ?? []);
      const pluralUses = new Set(entries[i].plural_uses ?? []);
      if ((everydayBefore.size || pluralUses.size) && !sentenceWords.size) throw new Error(`skills.json: ${skill.name}: everyday_before and plural_uses need sentence words`);
      for (const w of [...everydayBefore, ...pluralUses]) {
        if (w !== w.toLowerCase() || !/^[\p{L}\p{N}]+$/u.test(w)) throw new Error(`skills.json: ${skill.name}: ${w} must be one word in lower case`);
      }
      for (const w of pluralUses) if (!context.has(w)) throw new Error(`skills.json: ${skill.name}: plural use ${w} is not a context word`);
      for (const s of caseSensitive) {
        if (!skill.synonyms.includes(s)) throw new Error(`skills.json: ${skill.name}: ambiguous synonym ${s} is not a synonym`);
      }
      for (const form of entries[i].plurals ?? []) {
        if (form !== skill.name && !skill.synonyms.includes(form)) throw new Error(`skills.json: ${skill.name}: plural form ${form} is not its name or a synonym`);
        if (commonWords.has(form) || sentenceWords.has(form)) throw new Error(`skills.json: ${skill.name}: ${form} is a common or sentence word and has no plural`);
        plurals.push({ skill, form, strict: form === skill.name ? skill.ambiguous : caseSensitive.has(form) });
      }
      const nameKey = keyOf(skill.name);
      for (const [form, via] of [[skill.name, 'exact'], ...skill.synonyms.map((s) => [s, 'synonym'])] as Array<[string, Form['via']]>) {
        const written = form.normalize('NFKC');
        const tokens = tokenize(written);
        const key = tokens.lower.join('');
        if (!key) throw new Error(`skills.json: ${skill.name}: "${form}" has no letters or digits`);
        const owner = this.byKey.get(key);
        if (owner && owner !== skill) throw new Error(`skills.json: "${form}" (${skill.name}) is already ${owner.name}`);
        this.byKey.set(key, skill);
        const last = tokens.lower.length - 1;
        const strict = via === 'exact' ? skill.ambiguous : caseSensitive.has(form);
        const list = this.forms.get(key) ?? [];
        list.push({ skill, via: key === nameKey ? 'exact' : via, shape: shapeOf(tokens, 0, last), exact: strict ? lettersOf(written, tokens, 0, last) : null, context: commonWords.has(form) || sentenceWords.has(form) ? context : null, capitalSuffices: sentenceWords.has(form), everydayAfter: sentenceWords.has(form) ? everydayAfter : null,
          everydayBefore: sentenceWords.has(form) && everydayBefore.size ? everydayBefore : null, pluralUses: sentenceWords.has(form) && pluralUses.size ? pluralUses : null });
        // Loose forms first: a text that fits one needs no capitalisation or boundary check.
        list.sort((a, b) => Number(a.exact !== null) - Number(b.exact !== null));
        this.forms.set(key, list);
        // Free text must split as the form does, so a scan only extends runs that start some form token by token.
        for (let k = 0, prefix = ''; k <= last; k++) this.prefixes.add((prefix += tokens.lower[k]));
      }
    }
    // Plurals last, so that one that is already a form of any skill is refused whatever the order.
    for (const { skill, form, strict } of plurals) {
      const written = form.normalize('NFKC');
      const tokens = tokenize(written);
      const key = `${tokens.lower.join('')}s`;
      if (tokens.lower.length !== 1 || tokens.lower[0].length < 2 || !/\p{L}$/u.test(written) || /s$/i.test(written)) {
        throw new Error(`skills.json: ${skill.name}: plural of "${form}" must be of one word of two letters or more, not ending in s`);
      }
      const owner = this.byKey.get(key);
      if (owner) throw new Error(`skills.json: ${skill.name}: the plural of "${form}" is already ${owner.name}'s`);
      this.byKey.set(key, skill);
      this.forms.set(key, [{ skill, via: 'synonym', shape: String(key.length), exact: strict ? `${written}s` : null, context: null, capitalSuffices: false, everydayAfter: null, everydayBefore: null, pluralUses: null }]);
      this.prefixes.add(key);
    }
    for (const skill of skills) {
      for (const name of skill.related) {
        const other = this.byName.get(name);
        if (!other || other === skill) throw new Error(`skills.json: ${skill.name}: related skill ${name} is not in the taxonomy`);
        this.relatedTo.get(skill)!.add(other);
        this.relatedTo.get(other)!.add(skill);
      }
    }
    for (const skill of skills) {
      skill.related = [...this.relatedTo.get(skill)!].map((s) => s.name);
      Object.freeze(skill.synonyms);
      Object.freeze(skill.related);
      Object.freeze(skill);
    }
    this.skills = Object.freeze(skills);
  }

  lookup(term: string): Skill | null {
    const found = this.byKey.get(keyOf(term));
    if (found) return found;
    // "Java (Spring)", "Python 3.11", "Angular 2+": the name without its note or version.
    const bare = term.replace(/\s*\([^)]*\)\s*$/, '');
    const unversioned = bare.replace(/[\s-]*v?\d+(?:\.\d+)*(?:\.x)?\+?\s*$/i, '');
    const inner = /\(([^)]+)\)\s*$/.exec(term)?.[1];
    for (const candidate of [bare, unversioned, inner]) {
      const key = candidate ? keyOf(candidate) : '';
      if (key && this.byKey.has(key)) return this.byKey.get(key)!;
    }
    return null;
  }

  scan(text: string): SkillMention[] {
    const source = blankLinks(text);
    const tokens = tokenize(source);
    const hits: { form: Form; first: number; last: number }[] = [];
    for (let i = 0; i < tokens.lower.length;) {
      const hit = this.prefixes.has(tokens.lower[i]) ? this.matchAt(source, tokens, i) : null;
      if (!hit) {
        i++;
        continue;
      }
      hits.push({ form: hit.form, first: i, last: hit.last });
      i = hit.last + 1;
    }
    const mentions: SkillMention[] = [];
    hits.forEach((hit, h) => {
      if (hit.form.capitalSuffices && this.everyday(source, tokens, hits, h)) return;
      if (hit.form.context) {
        const start = this.startsSentence(source, tokens, hit.first);
        const needsContext = !hit.form.capitalSuffices || start || this.beforeCapitalised(source, tokens, hit.last);
        if (needsContext && !this.inContext(source, tokens, hits, h, start)) return;
      }
      const index = tokens.start[hit.first];
      mentions.push({ skill: hit.form.skill, matched: text.slice(index, tokens.end[hit.last]), index, via: hit.form.via });
    });
    return mentions;
  }

  /**
   * A sentence word that is the everyday word whatever its capital: before one of its `everyday_before` words ("Go
   * live"); after one of its `everyday_after` words ("let Go of", "No Go") unless a context word or another skill
   * follows; or after "the" at the end of a phrase ("On the Go").
   */
  private everyday(text: string, tokens: Tokens, hits: { form: Form; first: number; last: number }[], h: number): boolean {
    const { form, first, last } = hits[h];
    // "Go live", "Go Live workflows": a word of `everyday_before` right after it, on its line (a colon or dash between).
    const after = last + 1;
    if (form.everydayBefore && after < tokens.lower.length && form.everydayBefore.has(tokens.lower[after])
      && tokens.start[after] - tokens.end[last] <= EVERYDAY_WINDOW && /^[^\S\n]*[:–—-]?[^\S\n]*$/.test(text.slice(tokens.end[last], tokens.start[after]))) return true;
    // The few characters before it, from its line's start (marked by a space) when that is near.
    const from = Math.max(0, tokens.start[first] - EVERYDAY_WINDOW);
    const window = text.slice(from, tokens.start[first]);
    const lineStart = window.lastIndexOf('\n');
    const before = (lineStart >= 0 ? ` ${window.slice(lineStart + 1)}` : from === 0 ? ` ${window}` : window).toLowerCase().replace(/’/g, "'");
    const tail = text.slice(tokens.end[last], tokens.end[last] + EVERYDAY_WINDOW);
    const endsPhrase = PHRASE_END.test(tail) || (tokens.end[last] + EVERYDAY_WINDOW >= text.length && !/\S/.test(tail));
    if (endsPhrase && THE_BEFORE.test(before)) return true;
    if (!form.everydayAfter?.test(before)) return false;
    const next = hits[h + 1];
    const skillNext = next !== undefined && next.first === after && gapKind(text, tokens.end[last], tokens.start[after]) === SOFT;
    const contextNext = after < tokens.lower.length && gapKind(text, tokens.end[last], tokens.start[after]) === SOFT && form.context!.has(tokens.lower[after]);
    return !skillNext && !contextNext;
  }

  /**
   * Token k is the plural of a skill's name written as one word, not an everyday word itself ("Lambdas"): after a
   * sentence word ("Go Lambdas") it is what the language was used for, not a name.
   */
  private skillPlural(text: string, tokens: Tokens, k: number): boolean {
    const lower = tokens.lower[k];
    if (lower.length < 4 || !lower.endsWith('s')) return false;
    const key = lower.slice(0, -1);
    const letters = text.slice(tokens.start[k], tokens.end[k] - 1);
    return (this.forms.get(key) ?? []).some((f) => f.context === null && f.shape === String(key.length) && (f.exact === null || f.exact === letters));
  }

  /** Tokens i and i + 1 are words of one phrase on one line (only spaces between). */
  private softOnLine(text: string, tokens: Tokens, i: number): boolean {
    return gapKind(text, tokens.end[i], tokens.start[i + 1]) === SOFT && !text.slice(tokens.end[i], tokens.start[i + 1]).includes('\n');
  }

  /** Token i starts the text, a line, a column or a sentence. */
  private startsSentence(text: string, tokens: Tokens, i: number): boolean {
    return i === 0 || SENTENCE_BREAK.test(text.slice(tokens.end[i - 1], tokens.start[i]));
  }

  /** Token i is followed, on its line, by a capitalised word. */
  private beforeCapitalised(text: string, tokens: Tokens, i: number): boolean {
    const after = i + 1;
    return after < tokens.lower.length && gapKind(text, tokens.end[i], tokens.start[after]) === SOFT
      && !text.slice(tokens.end[i], tokens.start[after]).includes('\n') && CAPITALISED.test(text.slice(tokens.start[after], tokens.end[after]));
  }

  /**
   * A common-word form is the skill next to another skill in a list, after "in"/"using"…, or near a word of its context
   * (at a sentence's start, only a word after it: the previous sentence's words say nothing of it).
   */
  private inContext(text: string, tokens: Tokens, hits: { form: Form; first: number; last: number }[], h: number, start: boolean): boolean {
    const { form, first, last } = hits[h];
    const previous = hits[h - 1];
    const next = hits[h + 1];
    // A sentence word alone on its line ("- Go" in a job description's list, a parsed skill's name) is a list entry; a
    // common word may be a job title ("Packer").
    const lineStart = text.lastIndexOf('\n', tokens.start[first] - 1) + 1;
    const lineEnd = text.indexOf('\n', tokens.end[last]);
    if (form.capitalSuffices && ALONE_BEFORE.test(text.slice(lineStart, tokens.start[first])) && ALONE_AFTER.test(text.slice(tokens.end[last], lineEnd < 0 ? text.length : lineEnd))) return true;
    if (previous && LIST_GAP.test(text.slice(tokens.end[previous.last], tokens.start[first]))) return true;
    if (next && LIST_GAP.test(text.slice(tokens.end[last], tokens.start[next.first]))) return true;
    const after = last + 1;
    // "Go Lambdas": a sentence word before the plural of a skill is the language that skill was used in.
    if (form.capitalSuffices && after < tokens.lower.length && this.softOnLine(text, tokens, last) && this.skillPlural(text, tokens, after)) return true;
    // "Go Temporal workflows": a capitalised word that is no skill, then a plural of what the language builds.
    if (form.pluralUses && after + 1 < tokens.lower.length && UPPER.test(text[tokens.start[after]]) && form.pluralUses.has(tokens.lower[after + 1])
      && this.softOnLine(text, tokens, last) && this.softOnLine(text, tokens, after)) return true;
    // "with Julia Chen", "with Express Scripts": followed by a capitalised word that is no skill, it is a name.
    if (after < tokens.lower.length && this.softOnLine(text, tokens, last) && UPPER.test(text[tokens.start[after]]) && !form.context!.has(tokens.lower[after])) return false;
    // "Go preferred.", "Rust experience": a sentence word that a job description's word qualifies (only right after it:
    // "Swift turnaround required" is no Swift).
    if (form.capitalSuffices && last + 1 < tokens.lower.length && QUALIFIER_AFTER.has(tokens.lower[last + 1])
      && gapKind(text, tokens.end[last], tokens.start[last + 1]) === SOFT) return true;
    if (first > 0 && TOOL_BEFORE.has(tokens.lower[first - 1]) && gapKind(text, tokens.end[first - 1], tokens.start[first]) === SOFT) return true;
    for (let k = start ? first : Math.max(0, first - CONTEXT_WINDOW); k <= Math.min(tokens.lower.length - 1, last + CONTEXT_WINDOW); k++) {
      if ((k < first || k > last) && form.context!.has(tokens.lower[k])) return true;
    }
    return false;
  }

  related(a: string, b: string): boolean {
    const [x, y] = [this.resolve(a), this.resolve(b)];
    return x !== null && y !== null && (x.category === y.category || this.relatedTo.get(x)!.has(y));
  }

  closelyRelated(a: string, b: string): boolean {
    const [x, y] = [this.resolve(a), this.resolve(b)];
    return x !== null && y !== null && this.relatedTo.get(x)!.has(y);
  }

  private resolve(name: string): Skill | null {
    return this.byName.get(name) ?? this.lookup(name);
  }

  /** The longest acceptable form starting at token i, with its last token. */
  private matchAt(text: string, tokens: Tokens, i: number): { form: Form; last: number } | null {
    const ends: number[] = [];
    const found: Form[][] = [];
    let key = '';
    for (let j = i; j < tokens.lower.length && j < i + MAX_TOKENS; j++) {
      if (j > i && gapKind(text, tokens.end[j - 1], tokens.start[j]) === BREAK) break;
      key += tokens.lower[j];
      if (!this.prefixes.has(key)) break;
      const forms = this.forms.get(key);
      if (forms) {
        ends.push(j);
        found.push(forms);
      }
    }
    for (let c = found.length - 1; c >= 0; c--) {
      const last = ends[c];
      const shape = shapeOf(tokens, i, last);
      let letters: string | undefined;
      for (const form of found[c]) {
        if (form.shape !== shape) continue;
        if (form.exact === null) return { form, last };
        letters ??= lettersOf(text, tokens, i, last);
        if (form.exact === letters && this.standsAlone(text, tokens, i, last)) return { form, last };
      }
    }
    return null;
  }

  /** An ambiguous form must be its own word: not glued to a neighbour ("C-suite", "R&D", "D.C."), and a lone letter not a label ("Series C"). */
  private standsAlone(text: string, tokens: Tokens, first: number, last: number): boolean {
    const gapBefore = first > 0 ? gapKind(text, tokens.end[first - 1], tokens.start[first]) : BREAK;
    const gapAfter = last < tokens.lower.length - 1 ? gapKind(text, tokens.end[last], tokens.start[last + 1]) : BREAK;
    if (gapBefore === TIGHT || gapAfter === TIGHT) return false;
    if (first !== last || tokens.end[first] - tokens.start[first] !== 1) return true;
    const before = gapBefore === SOFT ? tokens.lower[first - 1] : '';
    const after = gapAfter === SOFT ? tokens.lower[last + 1] : '';
    if (LETTER_AFTER.has(before) || LETTER_BEFORE.has(after)) return false;
    // "Jane R. Doe": a middle initial between two names.
    const between = (k: number) => text.slice(tokens.end[k], tokens.start[k + 1]);
    return !(before && last < tokens.lower.length - 1 && /^\s+$/.test(between(first - 1)) && /^\.\s+$/.test(between(last)) &&
      UPPER.test(text[tokens.start[first - 1]]) && UPPER.test(text[tokens.start[last + 1]]));
  }
}

let loaded: Taxonomy | undefined;

/** Loads catalog/skills/skills.json once (path resolved from this file: the repo root is three levels up from src/modules/resumes and from dist/modules/resumes). */
export function skillTaxonomy(): SkillTaxonomy {
  loaded ??= new Taxonomy((JSON.parse(readFileSync(FILE, 'utf8')) as { skills: SkillEntry[] }).skills);
  return loaded;
}
