import path from 'node:path';
import { defineConfig } from 'vite';
import { outDir, precompress, shared } from './vite.config.js';

/** /embed.js: the classic-script loader a customer's page includes (one small file, no chunks), built after the room. */
export default defineConfig({
  ...shared,
  build: {
    outDir, emptyOutDir: false, target: 'es2020', sourcemap: true, reportCompressedSize: false, minify: true,
    lib: { entry: path.join(shared.root as string, 'embed-loader.ts'), name: 'PrepEmbedLoader', formats: ['iife'], fileName: () => 'embed.js' },
  },
  plugins: [precompress()],
});
