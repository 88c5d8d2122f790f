/** `{{name}}` placeholders, spaces inside the braces allowed. */
const PLACEHOLDER = /\{\{\s*([a-z][a-z0-9_]{0,31})\s*\}\}/g;
export const VARIABLE_NAME = /^[a-z][a-z0-9_]{0,31}$/;

/** The variables a prompt uses, in order of first use. */
export function placeholdersIn(prompt: string): string[] {
  return [...new Set([...prompt.matchAll(PLACEHOLDER)].map((m) => m[1]!))];
}

/** The task's variables the prompt leaves out. */
export function missingVariables(prompt: string, variables: readonly string[]): string[] {
  const used = new Set(placeholdersIn(prompt));
  return variables.filter((v) => !used.has(v));
}

/**
 * The prompt with each of the task's variables replaced by its value, in one pass: a value that itself holds
 * `{{…}}` is never expanded again. Placeholders that are not the task's variables stay as written.
 */
export function renderPrompt(prompt: string, vars: Readonly<Record<string, string>>): string {
  return prompt.replace(PLACEHOLDER, (whole, name: string) => (Object.hasOwn(vars, name) ? vars[name]! : whole));
}

/**
 * The largest a prompt may be as rendered with a case's values: checked at submission on the sample cases (their
 * values are the candidate's to see); a hidden case over it fails, unrun (see grading.ts), as checking hidden cases at
 * submission, free, would tell the length of their values.
 */
export const RENDERED_MAX_BYTES = 64 * 1024;

/** The UTF-8 size of the prompt as rendered with `vars`, computed without building it. */
export function renderedBytes(prompt: string, vars: Readonly<Record<string, string>>): number {
  let bytes = Buffer.byteLength(prompt);
  for (const m of prompt.matchAll(PLACEHOLDER)) {
    if (Object.hasOwn(vars, m[1]!)) bytes += Buffer.byteLength(vars[m[1]!]!) - Buffer.byteLength(m[0]);
  }
  return bytes;
}
