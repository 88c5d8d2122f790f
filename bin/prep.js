#!/usr/bin/env node
// The `prep` command: runs the compiled CLI (built by `npm install` through the `prepare` script).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  console.error('prep: the build is missing; run `npm run build` (npm install does it) first.');
  process.exit(1);
}
await import(entry.href);
