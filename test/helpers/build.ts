import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const newestIn = (dir: string): number =>
  Math.max(0, ...readdirSync(dir, { withFileTypes: true }).map((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? newestIn(p) : statSync(p).mtimeMs;
  }));

const builtAt = (file: string): number => {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
};

/**
 * Tests that run the `prep` binary need dist/ current: build once per test run (incremental, fast). The room
 * bundle (Vite) is rebuilt only when src/room changed since the last build.
 */
export default function setup(): void {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], { stdio: 'inherit' });
  if (newestIn('src/room') > builtAt('dist/room/embed.js')) { // the loader is built last (npm run build:room)
    for (const config of ['src/room/vite.config.ts', 'src/room/vite.loader.config.ts']) {
      execFileSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--config', config], { stdio: 'inherit' });
    }
  }
}
