// Where e2e screenshots are saved: fixed names under test-results/screenshots/, so a reviewer
// (or a later run) finds them at the same path every time.
import path from 'node:path';

const DIR = path.resolve(import.meta.dirname, '..', 'test-results', 'screenshots');

export const screenshotPath = (name: string) => path.join(DIR, `${name}.png`);
