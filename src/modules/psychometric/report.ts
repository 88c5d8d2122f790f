import { createRequire } from 'node:module';
import type { PsychometricTest } from './catalog.js';
import { qualityIndicators, scoreSheet, type DomainScore, type Label, type ScaleScore } from './scoring.js';

/** Johnson's public-domain result texts, per domain and level, in several languages (MIT package). */
interface TemplateDomain {
  domain: string;
  title: string;
  shortDescription: string;
  results: Array<{ score: 'low' | 'neutral' | 'high'; text: string }>;
  facets: Array<{ facet: number; title: string; text: string }>;
}
const resultText = createRequire(import.meta.url)('@alheimsins/b5-result-text') as {
  getTemplate(language: string): TemplateDomain[];
  getInfo(): { languages: Array<{ id: string }> };
};
const TEXT_LANGUAGES = new Set(resultText.getInfo().languages.map((l) => l.id));
const nameKey = (name: string) => name.trim().toLowerCase();
/**
 * Johnson's domains by the name the English template gives them (lower case). A scale gets a domain's text when it
 * bears that name, whatever its key: the Mini-IPIP's fifth scale is keyed O but is Intellect/Imagination, not
 * Openness to Experience, and an organisation's "A" may be Adaptability. A facet gets a text when it bears the name
 * of one of its domain's facets.
 */
const TEXT_DOMAINS = new Map(resultText.getTemplate('en').map((d) => [nameKey(d.title), d] as const));
/**
 * Prep's own texts (English) for Big-Five scales Johnson's texts do not describe: the IPIP Big-Five markers' fifth
 * factor, Intellect/Imagination (the Mini-IPIP's), is narrower than Openness to Experience (no artistic interests,
 * emotionality, adventurousness or liberalism).
 */
const OWN_TEXTS = new Map<string, { shortDescription: string; results: Record<'low' | 'neutral' | 'high', string> }>([
  ['intellect/imagination', {
    shortDescription: 'Intellect/Imagination describes how much a person enjoys ideas, abstract thinking and using their imagination.',
    results: {
      low: 'Your score on Intellect/Imagination is low, indicating you prefer concrete, practical matters to abstract ideas and flights of imagination.',
      neutral: 'Your score on Intellect/Imagination is average, indicating you take an interest in ideas and imagination when they serve a purpose, without seeking out the abstract for its own sake.',
      high: 'Your score on Intellect/Imagination is high, indicating you enjoy abstract ideas, have a vivid imagination, and like to think things through.',
    },
  }],
]);
const LEVEL: Record<Label, 'low' | 'neutral' | 'high'> = { low: 'low', average: 'neutral', high: 'high' };

/** The package writes line breaks and <br /> for a web page; a report carries plain text. */
const plain = (text: string) => text.replace(/<br\s*\/?>/gi, '\n').replace(/[ \t]*\n[ \t]*/g, '\n').replace(/([^\n])\n([^\n])/g, '$1 $2').trim();

export interface NormRef {
  key: string;
  label: string;
  source: string;
}

export interface PsychometricReport {
  /** How the sheet ended: submitted, or fully answered when its time ran out (as the completion event says). */
  outcome: 'completed' | 'timed_out';
  language: string;
  text_language: string;
  norm_group: NormRef | null;
  domains: Array<ScaleScore & { text: string; facets: Array<ScaleScore & { text: string }> }>;
  quality: ReturnType<typeof qualityIndicators>;
  flagged: string[];
  summary: string;
}

/**
 * The highest and lowest domains by `value`, every domain tied at either end named; scores all equal say so rather
 * than name one "highest" and one "lowest" that differ in nothing.
 */
function extremes(domains: DomainScore[], value: (d: DomainScore) => number, shown: (d: DomainScore) => string, what: string): string {
  const values = domains.map(value);
  const top = Math.max(...values);
  const bottom = Math.min(...values);
  const at = (v: number) => domains.filter((d) => value(d) === v).map((d) => `${d.name} (${shown(d)})`).join(', ');
  if (domains.length === 1) return `The one domain with a ${what}: ${at(top)}.`;
  if (top === bottom) return `Every domain has the same ${what} (${shown(domains[0]!)}).`;
  return `Highest ${what}: ${at(top)}; lowest: ${at(bottom)}.`;
}

function describe(domains: DomainScore[], norms: NormRef | null, flagged: string[]): string {
  const parts: string[] = [];
  // Local norms may place only some domains: one on which the sheets spread by under one raw point (every one the
  // same, or 25 at 10 and 25 at 11) has no T-score.
  const placed = domains.filter((d) => d.t_score !== null);
  if (norms && placed.length > 0) {
    parts.push(`Scored against ${norms.key === 'local' ? 'local norms' : 'published norms'} (${norms.label}).`);
    parts.push(extremes(placed, (d) => d.t_score!, (d) => `${d.label}, T ${d.t_score}`, 'T-score'));
    const outside = placed.filter((d) => d.label !== 'average').map((d) => `${d.name} ${d.label}`);
    parts.push(outside.length ? `Outside the average band: ${outside.join(', ')}.` : `Every domain${placed.length < domains.length ? ' with a T-score' : ''} is in the average band.`);
    const unplaced = domains.filter((d) => d.t_score === null).map((d) => d.name);
    if (unplaced.length > 0) parts.push(`No T-score for ${unplaced.join(', ')}: the sessions in the norm group spread by under one raw point there (SD below 1), so the norms cannot place a score.`);
  } else {
    parts.push('Raw and mean item scores only: this instrument has no published norms, and the organisation does not yet have 50 completed sessions of it in this environment whose scores vary, for local norms, so no T-scores or percentiles are given.');
    parts.push(extremes(domains, (d) => d.mean, (d) => `${d.mean} of 5`, 'mean item score'));
  }
  parts.push(flagged.length ? `Response quality: ${flagged.join(', ')} flagged; read the scores with caution.` : 'Response quality: no indicator flagged.');
  const facets = domains.some((d) => d.facets.length > 0);
  parts.push(`A personality profile is one input to a decision about a person, never the decision: weigh it with the role's requirements and other evidence${facets ? ', and facet scores (four items each) less than domain scores' : ''}.`);
  return parts.join(' ');
}

/** The report of a complete answer sheet: scores per domain and facet, texts, quality indicators and a summary. */
export function buildReport(input: {
  test: PsychometricTest; language: string; order: string[]; answers: Record<string, number>;
  norms: { group: NormRef; mean_sd: Record<string, [number, number]> } | null; seconds: number | null;
  outcome: PsychometricReport['outcome'];
}): PsychometricReport {
  const { test, language, order, answers, norms, seconds, outcome } = input;
  const textLanguage = TEXT_LANGUAGES.has(language) ? language : 'en';
  const template = resultText.getTemplate(textLanguage);
  const domains = scoreSheet(test.instrument, answers, norms ? { mean_sd: norms.mean_sd } : null);
  const quality = qualityIndicators(test.instrument, order, answers, seconds);
  const flagged = Object.entries(quality).filter(([, q]) => q.flagged).map(([name]) => name);
  return {
    outcome,
    language,
    text_language: textLanguage,
    norm_group: norms?.group ?? null,
    domains: domains.map((d) => {
      const named = TEXT_DOMAINS.get(nameKey(d.name));
      const t = named && template.find((x) => x.domain === named.domain);
      const own = textLanguage === 'en' ? OWN_TEXTS.get(nameKey(d.name)) : undefined; // a Map: a domain may be named "Constructor"
      const text = t ? plain(d.label ? t.results.find((r) => r.score === LEVEL[d.label!])!.text : t.shortDescription)
        : own ? (d.label ? own.results[LEVEL[d.label]] : own.shortDescription) : '';
      return {
        ...d, text,
        facets: d.facets.map((f) => {
          const facet = named?.facets.find((x) => nameKey(x.title) === nameKey(f.name));
          const ft = facet && t?.facets.find((x) => x.facet === facet.facet);
          return { ...f, text: ft ? plain(ft.text) : '' };
        }),
      };
    }),
    quality,
    flagged,
    summary: describe(domains, norms?.group ?? null, flagged),
  };
}
