import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin, type UserConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));
export const outDir = path.resolve(here, '../../dist/room');

/** gzip and brotli copies beside each asset, served as they are (@fastify/static preCompressed). */
export function precompress(): Plugin {
  return {
    name: 'prep-precompress',
    apply: 'build',
    closeBundle() {
      for (const name of readdirSync(outDir)) {
        if (!/\.(js|css|svg)$/.test(name)) continue;
        const file = path.join(outDir, name);
        if (statSync(file).mtimeMs <= (statSync(file + '.br', { throwIfNoEntry: false })?.mtimeMs ?? 0)) continue; // done by the other build
        const body = readFileSync(file);
        writeFileSync(file + '.gz', gzipSync(body, { level: 9 }));
        writeFileSync(file + '.br', brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
      }
    },
  };
}

/** A chunk that starts in a package (an editor grammar) is named after it, one of packages only "vendor", not "dist". */
const packageOf = (id: string | null): string | null =>
  id?.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//)?.[1]?.replace(/^@/, '').replace('/', '-') ?? null;
const chunkName = (chunk: { name: string; facadeModuleId: string | null; moduleIds: string[] }): string =>
  packageOf(chunk.facadeModuleId) ?? (chunk.moduleIds.every((id) => packageOf(id)) ? 'vendor' : chunk.name);

export const shared: UserConfig = {
  root: here,
  logLevel: 'warn',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
};

/**
 * The room as ES modules: two entries, launch.js (the hosted page) and embed-room.js (the widget, imported by the
 * /embed.js loader that vite.loader.config.ts builds next), and a chunk per room and per editor grammar, fetched
 * when needed. Styles are imported as strings and adopted by the room's own (shadow) root.
 */
export default defineConfig({
  ...shared,
  build: {
    outDir, emptyOutDir: true, target: 'es2020', sourcemap: true, reportCompressedSize: false, minify: true,
    lib: {
      entry: { launch: path.join(here, 'launch-main.ts'), 'embed-room': path.join(here, 'embed-room.ts') },
      formats: ['es'],
      fileName: (_format, entry) => `${entry}.js`,
    },
    rolldownOptions: { output: { chunkFileNames: (chunk) => `${chunkName(chunk)}-[hash].js` } },
  },
  plugins: [precompress()],
});
