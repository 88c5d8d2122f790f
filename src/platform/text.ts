/** The first `max` UTF-16 units of text, one fewer where the cut would split a surrogate pair (an emoji). */
export function head(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/**
 * Never in a one-line name or title: control characters (line breaks too), line and paragraph separators, format
 * characters (bidi overrides, zero-width) and U+FFFD (what a file not saved in UTF-8 turns into).
 */
export const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\uFFFD]/u;
