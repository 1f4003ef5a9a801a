// A search snippet (search-contract.ts: plain text with \u0002 … \u0003 around the words that
// matched) as parts to render: text parts become text nodes, marked parts <mark>. Nothing of the
// snippet is ever HTML, so a post that says "<script>" shows those characters.
import { createElement, Fragment, type ReactNode } from 'react';

/** The markers of search-contract.ts's SNIPPET_MARK (the renderer imports only types from the
 * core; the tests of both sides pin the same two characters). */
export const MARK = { start: '\u0002', end: '\u0003' } as const;

export interface SnippetPart {
  text: string;
  marked: boolean;
}

export function snippetParts(snippet: string): SnippetPart[] {
  const parts: SnippetPart[] = [];
  let marked = false;
  let text = '';
  const flush = () => {
    if (text !== '') parts.push({ text, marked });
    text = '';
  };
  for (const ch of snippet) {
    if (ch === MARK.start || ch === MARK.end) {
      flush();
      marked = ch === MARK.start;
    } else {
      text += ch;
    }
  }
  flush();
  return parts;
}

/** The snippet as React nodes: <mark> for matches, text for the rest. */
export function renderSnippet(snippet: string): ReactNode {
  return createElement(
    Fragment,
    null,
    ...snippetParts(snippet).map((p, i) => (p.marked ? createElement('mark', { key: i }, p.text) : createElement(Fragment, { key: i }, p.text))),
  );
}
