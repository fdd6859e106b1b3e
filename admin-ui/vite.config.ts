import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// Served by the API under /admin/ (see serveAdminPanel in src/bootstrap.ts), so assets are addressed from there.
export default defineConfig({
  base: '/admin/',
  plugins: [react()],
  // public/ holds the placeholder the API serves while the panel is not built; it is not part of the build.
  publicDir: false,
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 3000 },
  server: { proxy: { '/api': 'http://localhost:3000' } },
  test: {
    environment: 'happy-dom',
    // The Playwright specs under e2e/ are run by Playwright, never by Vitest.
    include: ['src/**/*.test.{ts,tsx}'],
    // One module graph per worker instead of one per file: each file would otherwise import react-admin and MUI anew
    // (about 3 s a file on a two-core machine, most of the run). The specs share no state but local storage, which
    // each clears before its tests; they pass in any order (`--sequence.shuffle`).
    isolate: false,
  },
});
