import type { PsychometricTest } from './catalog.js';

/**
 * A session's answers as stored: one character per item of its test, in the test's item order (a stored test's items
 * never change): '0' unanswered, '1'–'5' the answer. Fixed-length, so saving a page rewrites the row in place (SQLite
 * overwrites a same-size record, and writes only the pages that changed) and counting the answers needs no parsing.
 * A page is merged by `merge_marks` (src/db/functions.ts on SQLite, migration 0015 on PostgreSQL).
 */
export const UNANSWERED = '0';
/** In a page: leave the saved character as it is. */
export const KEEP = '.';

export const noAnswers = (test: PsychometricTest) => UNANSWERED.repeat(test.definition.items.length);

/** How many items a stored sheet has answered. */
export function answeredCount(stored: string): number {
  let n = 0;
  for (let i = 0; i < stored.length; i++) if (stored[i] !== UNANSWERED) n++;
  return n;
}

/**
 * The stored sheet as answers by item id. No prototype: an item id such as `constructor` or `toString` (an
 * organisation's own instrument may use one) must read as unanswered until it is answered.
 */
export function answersById(test: PsychometricTest, stored: string): Record<string, number> {
  const answers = Object.create(null) as Record<string, number>;
  test.definition.items.forEach((item, i) => {
    const value = stored.charCodeAt(i) - 48;
    if (value > 0) answers[item.id] = value;
  });
  return answers;
}

const positions = new WeakMap<PsychometricTest, ReadonlyMap<string, number>>();
/** Each item id's place in the stored sheet. */
export function itemPositions(test: PsychometricTest): ReadonlyMap<string, number> {
  let found = positions.get(test);
  if (!found) positions.set(test, (found = new Map(test.definition.items.map((item, i) => [item.id, i]))));
  return found;
}
