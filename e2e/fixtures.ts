// The `test` every spec uses: a fresh Tern in headless mode per test (with the test identity
// unless a spec asks otherwise with test.use({ ternOptions })), and a browser context closed
// before Tern stops: Chromium keeps, and opens ahead, connections per context, and Tern's UI
// server waits for open connections when it shuts down (10 s, then SIGKILL).
import { test as base } from '@playwright/test';
import { startHeadless, TEST_IDENTITY, type Headless, type HeadlessOptions } from './headless';

export const test = base.extend<{ ternOptions: HeadlessOptions; tern: Headless }>({
  ternOptions: [TEST_IDENTITY, { option: true }],
  tern: async ({ ternOptions }, use) => {
    const tern = await startHeadless(ternOptions);
    await use(tern);
    await tern.stop();
  },
  context: async ({ context, tern }, use) => {
    void tern;
    await use(context);
    await context.close();
  },
});

export { expect } from '@playwright/test';
