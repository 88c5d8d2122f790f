/** The first `max` UTF-16 units of text, one fewer where the cut would split a surrogate pair (an emoji). */
export function head(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** `index`, or one less where it falls between the two halves of a surrogate pair (a cut there splits an emoji). */
export function atCodePoint(text: string, index: number): number {
  if (index <= 0 || index >= text.length) return index;
  const before = text.charCodeAt(index - 1);
  const at = text.charCodeAt(index);
  return before >= 0xd800 && before <= 0xdbff && at >= 0xdc00 && at <= 0xdfff ? index - 1 : index;
}

/**
 * Never in a one-line name or title: control characters (line breaks too), line and paragraph separators, format
 * characters (bidi overrides, zero-width) and U+FFFD (what a file not saved in UTF-8 turns into).
 */
export const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\uFFFD]/u;
