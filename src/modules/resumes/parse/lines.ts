/** The one shape every format is read into before sections and fields are found. */
export interface Line {
  text: string;
  page: number;
  /** Font size in points (PDF), or a nominal size by style (DOCX, text). */
  size: number;
  bold: boolean;
  /** The format itself marks the line as a heading (a DOCX heading style). */
  heading: boolean;
  /** A list item (a bullet glyph, or a DOCX list). */
  bullet: boolean;
  /** Blank space above the line in multiples of its font size (0 when unknown, large at a column's start). */
  gapBefore: number;
  /** Horizontal position in points (PDF), else 0. */
  left: number;
  /** The first line of a page column: text above the column's first heading belongs to no earlier section. */
  columnStart?: boolean;
}

export const BULLET = /^\s*(?:[•●▪◦‣∙·○■□➢➤►▶✓✔\-–*]|\d{1,2}[.)])\s+/;

export function stripBullet(text: string): string {
  return text.replace(BULLET, '').trim();
}

export class UnprocessableResume extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(reason);
    this.reason = reason;
  }
}
