// A sentence with other people's names in it ("Ana Lima and 2 others liked your post", "Ana
// boosted"), each name in its own <bdi>: a name is text from another server, and its direction
// (or a bidi control left in it) must not reorder the words around it — "Ana Lima\u202E liked
// your post" read backwards. The sentence is made by strings.ts with a slot where each name
// goes, so the words stay in one place for translation and the names never pass through a
// template. A slot may hold more than a name: a reaction's emoji (a picture, for a custom one).
import type { ReactNode } from 'react';

// Private-use characters: no sentence in strings.ts has them, and a name is never read for them.
const SLOT = /\uE000(\d+)\uE001/g;

/** What stands for the `i`-th name while the sentence is made. */
export function nameSlot(i: number): string {
  return `\uE000${i}\uE001`;
}

/** `text` with each slot replaced by its name, isolated. */
export function WithNames({ text, names }: { text: string; names: readonly ReactNode[] }) {
  const parts: ReactNode[] = [];
  let last = 0;
  for (const match of text.matchAll(SLOT)) {
    parts.push(text.slice(last, match.index));
    parts.push(<bdi key={match.index}>{names[Number(match[1])] ?? ''}</bdi>);
    last = match.index + match[0].length;
  }
  parts.push(text.slice(last));
  return <>{parts}</>;
}
