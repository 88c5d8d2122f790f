import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALL_ERROR_CODES, ERROR_CODES } from '../../src/platform/errors.js';

describe('docs/errors.md', () => {
  const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const rows = new Map([...doc.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \| `([a-z_]+)` \|/gm)].map((m) => [m[1], { status: Number(m[2]), type: m[3] }]));

  it('documents every code with its status and type, and nothing else', () => {
    expect([...rows.keys()].sort()).toEqual([...ALL_ERROR_CODES].sort());
    for (const code of ALL_ERROR_CODES) expect(rows.get(code), code).toEqual({ status: ERROR_CODES[code].status, type: ERROR_CODES[code].type });
  });
});
