import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));
const outDir = path.resolve(here, '../../dist/room');

/** gzip and brotli copies beside each asset, served as they are (@fastify/static preCompressed). */
function precompress(): Plugin {
  return {
    name: 'prep-precompress',
    apply: 'build',
    closeBundle() {
      for (const name of readdirSync(outDir)) {
        if (!/\.(js|css|svg)$/.test(name)) continue;
        const body = readFileSync(path.join(outDir, name));
        writeFileSync(path.join(outDir, name + '.gz'), gzipSync(body, { level: 9 }));
        writeFileSync(path.join(outDir, name + '.br'), brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
      }
    },
  };
}

/**
 * One script for both entries: the hosted launch page boots it on #prep-launch, a customer's page calls
 * window.PrepEmbed.mount(). Styles are imported as strings and adopted by the room's own (shadow) root.
 */
export default defineConfig({
  root: here,
  logLevel: 'warn',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir, emptyOutDir: true, target: 'es2020', sourcemap: true, reportCompressedSize: false,
    lib: { entry: path.join(here, 'main.ts'), name: 'PrepRoom', formats: ['iife'], fileName: () => 'prep-room.js' },
  },
  plugins: [precompress()],
});
