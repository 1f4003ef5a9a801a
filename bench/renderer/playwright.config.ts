// `npm run bench:renderer`: the renderer's own costs, in Debian's Chromium against Tern in
// headless mode, as the e2e tests run it (playwright.config.ts), without traces or screenshots
// (recording them costs the page time that grows with the DOM). Not part of `npm test`.
import { defineConfig } from '@playwright/test';
import base from '../../playwright.config';

export default defineConfig({
  ...base,
  testDir: '.',
  outputDir: '../../test-results/bench-renderer',
  timeout: 15 * 60_000,
  use: { ...base.use, trace: 'off', screenshot: 'off', video: 'off' },
});
