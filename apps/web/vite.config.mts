import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** The web UI, built into dist/web and served by apps/server at `/`; everything is bundled, nothing from a CDN. */
export default defineConfig({
  root: here('.'),
  base: '/',
  publicDir: false,
  // The wire contract shared with the server (libs/contracts): types and code lists, bundled like any source.
  resolve: { alias: { '@app/contracts': here('../../libs/contracts/src/index.ts') } },
  build: {
    outDir: here('../../dist/web'),
    emptyOutDir: true,
    sourcemap: false,
    target: 'es2022',
    // One entry chunk and modern browsers only: the preload polyfill would be dead weight.
    modulePreload: { polyfill: false },
  },
});
