// Printing the bench: aligned rows of label, measured value, target and verdict.

export type Verdict = 'PASS' | 'FAIL' | 'info' | 'n/a';

export interface Row {
  label: string;
  value: string;
  target?: string;
  verdict?: Verdict;
}

const WIDTH = { label: 46, value: 30, target: 22 };

export function section(title: string): void {
  console.log(`\n== ${title} ${'='.repeat(Math.max(0, 104 - title.length))}`);
}

export function rows(list: Row[]): void {
  for (const r of list) {
    const verdict = r.verdict === undefined || r.verdict === 'info' ? '' : r.verdict;
    console.log(`  ${r.label.padEnd(WIDTH.label)} ${r.value.padEnd(WIDTH.value)} ${(r.target ?? '').padEnd(WIDTH.target)} ${verdict}`.trimEnd());
  }
}

export function note(text: string): void {
  console.log(`  ${text}`);
}

export const pass = (ok: boolean): Verdict => (ok ? 'PASS' : 'FAIL');
export const n0 = (x: number) => Math.round(x).toLocaleString('en-US');
export const n1 = (x: number) => x.toFixed(1);
export const n2 = (x: number) => x.toFixed(2);
export const per = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ') || 'none';
