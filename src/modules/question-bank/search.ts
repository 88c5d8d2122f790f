/**
 * Search text as people type it into a search box (web-search style: words, "quoted phrases", `or`, `-excluded`),
 * read once into terms that only hold words (runs of letters, digits and marks that have a letter or digit), then
 * written for each engine: an FTS5 query with every term quoted, and a `to_tsquery` expression for PostgreSQL with
 * every word quoted. Neither can be a syntax error or an engine error, whatever the input.
 */
export interface SearchTerms {
  /** AND of groups; each group is an OR of terms; a term is a phrase of one or more words. */
  groups: string[][][];
  excluded: string[][];
}

/** At most this many terms count: more only slow the search down. */
const MAX_TERMS = 32;

/**
 * PostgreSQL's English stop words (`tsearch_data/english.stop`), which its `english` configuration drops: they are
 * dropped here for both engines, whose indexes keep every word (PostgreSQL's `prep_english`, migration 0031).
 */
const STOP_WORDS = new Set(('i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself '
  + 'it its itself they them their theirs themselves what which who whom this that these those am is are was were be been being have has had '
  + 'having do does did doing a an the and but if or because as until while of at by for with about against between into through during '
  + 'before after above below to from up down in out on off over under again further then once here there when where why how all any both '
  + 'each few more most other some such no nor not only own same so than too very s t can will just don should now').split(' '));
const isStopWord = (word: string) => STOP_WORDS.has(word);

export function parseSearch(text: string): SearchTerms | null {
  // Folded first, as the stored text is: ligatures and compatibility forms, ß, accents (foldSearchText).
  const input = foldSearchText(text);
  const wordsOf = (text: string) => (text.match(/[\p{L}\p{N}\p{M}]+/gu) ?? []).filter((w) => /[\p{L}\p{N}]/u.test(w));
  const groups: string[][][] = [];
  const excluded: string[][] = [];
  const seen = new Set<string>();
  let joinNext = false;
  // After a term of stop words only: what an `or` right after it does (it joins as the dropped term would have).
  let afterStop: boolean | null = null;
  let terms = 0;
  for (const m of input.matchAll(/(-?)"([^"]*)"?|(\S+)/g)) {
    if (terms >= MAX_TERMS) break;
    const negative = m[1] === '-' || (m[3] !== undefined && m[3].startsWith('-'));
    const raw = m[2] ?? (negative ? m[3]!.slice(1) : m[3]!);
    if (!negative && m[3] !== undefined && m[3].toLowerCase() === 'or') {
      joinNext = afterStop ?? groups.length > 0;
      afterStop = null;
      continue;
    }
    afterStop = null;
    // An unquoted token with punctuation inside ("c++", "o'brien") is a phrase of its words. Lower case writes a
    // word's last Σ as the final sigma ς (ΣΟΦΟΣ is σοφος): folded to σ again, as the text is (foldSearchText).
    const words = wordsOf(raw).map((w) => w.toLowerCase().replace(/ς/g, 'σ'));
    if (words.length === 0) continue;
    // Stop words at either end of a phrase are dropped too ("the cache" is cache); one inside a phrase stays, and
    // both engines want that very word there ("design the cache" is not "design a cache").
    const first = words.findIndex((w) => !isStopWord(w));
    const phrase = first < 0 ? [] : words.slice(first, words.findLastIndex((w) => !isStopWord(w)) + 1);
    if (phrase.length === 0) {
      // Stop words only: the term is dropped (as PostgreSQL's `english` does), and `cache or the` is cache; it takes
      // its `or` with it.
      if (!negative) afterStop = joinNext;
      joinNext = false;
      continue;
    }
    const key = `${negative ? '-' : ''}${phrase.join(' ')}`;
    if (seen.has(key)) {
      // A repeat ("cache or cache") takes its `or` with it: the next term is ANDed, as it would have been.
      joinNext = false;
      continue;
    }
    seen.add(key);
    terms++;
    if (negative) excluded.push(phrase);
    else if (joinNext) groups[groups.length - 1]!.push(phrase);
    else groups.push([phrase]);
    joinNext = false;
  }
  return groups.length === 0 ? null : { groups, excluded };
}

/** The FTS5 MATCH expression. */
export function ftsQuery(terms: SearchTerms): string {
  const quote = (phrase: string[]) => `"${phrase.join(' ')}"`; // words folded by parseSearch
  const positive = terms.groups.map((g) => (g.length === 1 ? quote(g[0]!) : `(${g.map(quote).join(' OR ')})`)).join(' AND ');
  const single = terms.groups.length === 1 && terms.groups[0]!.length === 1;
  return terms.excluded.reduce((q, phrase) => `${q} NOT ${quote(phrase)}`, single ? positive : `(${positive})`);
}

/**
 * Text as both engines index it and as a search is read: compatibility forms as their plain letters (NFKC: the
 * ligatures ﬁ and ﬂ are fi and fl, fullwidth Ａ is A), ß (and ẞ) as ss, Latin and Greek letters without their
 * accents (é → e, ü → u, ά → α; other scripts keep their marks), and the Greek final sigma ς as σ (the σ that Σ lowers
 * to: "σοφος" and "ΣΟΦΟΣ" are one word). SQLite's index is written with it (store.ts); PostgreSQL's search column does
 * the same in SQL (migrations 0029 and 0030). Its result folded again is the same.
 */
export const foldSearchText = (text: string) => text.normalize('NFKD').replace(/[ßẞ]/g, 'ss')
  .replace(/([A-Za-z\u0370-\u03ff])[\u0300-\u036f]+/g, '$1').normalize('NFC').replace(/ς/g, 'σ');

/**
 * The same terms as a `to_tsquery` expression, grouped as FTS5's is: `websearch_to_tsquery` cannot take parentheses,
 * and in a tsquery AND binds tighter than OR, so `"fat rat" or cat dog` would have meant fat rat OR (cat AND dog).
 * Every word is quoted, and a word holds only letters, digits and marks, so no operator can be written by the input;
 * it was folded as the column's text is (parseSearch); the engine still stems each (stop words went in parseSearch).
 */
export function tsQueryText(terms: SearchTerms): string {
  const phrase = (words: string[]) => `(${words.map((w) => `'${w}'`).join(' <-> ')})`;
  const positive = terms.groups.map((g) => (g.length === 1 ? phrase(g[0]!) : `(${g.map(phrase).join(' | ')})`));
  return [...positive, ...terms.excluded.map((p) => `!${phrase(p)}`)].join(' & ');
}
