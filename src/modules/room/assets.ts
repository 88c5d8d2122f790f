import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The bundle Vite builds from src/room: the hosted room and the embed widget in one script. */
export const BUNDLE = 'prep-room.js';

/**
 * Where the built room lives: dist/room, found from this module in dist/ (a build) or in src/ (tests run the
 * TypeScript). Null when the room has not been built (`npm run build` builds it; `npm install` runs that).
 */
export function roomAssetsDir(): string | null {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const candidate of ['../../room', '../../../dist/room']) {
    const dir = path.resolve(here, candidate);
    if (existsSync(path.join(dir, BUNDLE))) return dir;
  }
  return null;
}
