import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What Vite builds from src/room: the hosted page's module, the classic script customers' pages include (it imports
 * the widget's module, embed-room.js), and beside them a chunk per room and per editor grammar.
 */
export const LAUNCH_SCRIPT = 'launch.js';
export const EMBED_SCRIPT = 'embed.js';

/**
 * Where the built room lives: dist/room, found from this module in dist/ (a build) or in src/ (tests run the
 * TypeScript). Null when the room has not been built (`npm run build` builds it; `npm install` runs that).
 */
export function roomAssetsDir(): string | null {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const candidate of ['../../room', '../../../dist/room']) {
    const dir = path.resolve(here, candidate);
    if (existsSync(path.join(dir, LAUNCH_SCRIPT)) && existsSync(path.join(dir, EMBED_SCRIPT))) return dir;
  }
  return null;
}
