import { execFileSync } from 'node:child_process';

/** Tests that run the `prep` binary need dist/ current: build once per test run (incremental, fast). */
export default function setup(): void {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], { stdio: 'inherit' });
}
