/// <reference types="vitest/config" />
import { defineConfig } from 'vite';

// React JSX is compiled by esbuild (no @vitejs/plugin-react).
// `base: './'` makes the build work both when served by `servicedesk serve`
// at `/` and inside the Tauri webview at `tauri://localhost`.
export default defineConfig({
  base: './',
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2020',
  },
  server: {
    // `npm run dev` talks to a running `servicedesk serve` (default port 8787).
    proxy: {
      '/api': process.env.SERVICEDESK_API_URL ?? 'http://127.0.0.1:8787',
    },
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    restoreMocks: true,
  },
});
