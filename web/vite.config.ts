import { defineConfig } from 'vite';

// TSX is compiled by Vite's own transformer (React's automatic JSX runtime): no Babel plugin, a fast build.
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    // The whole app is small; no inline <script> (the CSP forbids it) and no inlined assets as data: URLs in CSS.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
});
