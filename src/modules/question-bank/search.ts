/**
 * Search text as people type it into a search box (web-search style: words, "quoted phrases", `or`, `-excluded`),
 * turned into an FTS5 query that cannot be a syntax error: only words made of letters, digits and marks reach
 * FTS5, each quoted. PostgreSQL reads the same text with `websearch_to_tsquery`, which accepts any input.
 * Null when nothing is left to look for (only punctuation, or only exclusions).
 */
export function ftsQuery(input: string): string | null {
  const words = (text: string) => text.match(/[\p{L}\p{N}\p{M}]+/gu) ?? [];
  const quote = (ws: string[]) => `"${ws.join(' ')}"`;
  const groups: string[][] = [];
  const excluded: string[] = [];
  let joinNext = false;
  for (const m of input.matchAll(/(-?)"([^"]*)"?|(\S+)/g)) {
    const negative = m[1] === '-' || (m[3] !== undefined && m[3].startsWith('-'));
    const raw = m[2] ?? (negative ? m[3].slice(1) : m[3]);
    if (!negative && m[3] !== undefined && m[3].toLowerCase() === 'or') {
      joinNext = groups.length > 0;
      continue;
    }
    const ws = words(raw);
    if (ws.length === 0) continue;
    // An unquoted token with punctuation inside ("c++", "o'brien") is a phrase of its words.
    const term = quote(ws);
    if (negative) excluded.push(term);
    else if (joinNext) groups[groups.length - 1].push(term);
    else groups.push([term]);
    joinNext = false;
  }
  if (groups.length === 0) return null;
  const positive = groups.map((g) => (g.length === 1 ? g[0] : `(${g.join(' OR ')})`)).join(' AND ');
  return excluded.reduce((q, term) => `${q} NOT ${term}`, groups.length === 1 && groups[0].length === 1 ? positive : `(${positive})`);
}
