// Tern's keyboard shortcuts (UX.md): j/k move between posts, o opens, r replies, l likes, b
// boosts, q quotes, n composes, / searches, ? lists them all. Keys are ignored while the author
// types in a field or holds a modifier. Posts are found in the DOM (`[data-post]` in the main
// column), and an action is the post's own button (`[data-action=…]`), so a shortcut does
// exactly what a click does — optimistic update, pending mark and all.
import { useEffect } from 'react';
import { navigate } from './places';

export const SHORTCUT_KEYS = ['j', 'k', 'o', 'r', 'l', 'b', 'q', 'n', '/', '?'] as const;
export type ShortcutKey = (typeof SHORTCUT_KEYS)[number];

const POST_ACTIONS: Partial<Record<ShortcutKey, string>> = { o: 'open', r: 'reply', l: 'like', b: 'boost', q: 'quote' };

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (target instanceof HTMLInputElement) return !['checkbox', 'radio', 'button', 'submit', 'reset'].includes(target.type);
  return false;
}

function posts(): HTMLElement[] {
  return [...document.querySelectorAll<HTMLElement>('#main [data-post]')];
}

function currentPost(): HTMLElement | null {
  const active = document.activeElement;
  return active instanceof HTMLElement ? active.closest<HTMLElement>('#main [data-post]') : null;
}

function movePost(step: 1 | -1): void {
  const list = posts();
  if (list.length === 0) return;
  const current = currentPost();
  const index = current ? list.indexOf(current) : -1;
  const next = index < 0 ? (step === 1 ? list[0] : list.at(-1)) : list[Math.max(0, Math.min(list.length - 1, index + step))];
  next?.focus({ preventScroll: true });
  next?.scrollIntoView({ block: 'nearest', behavior: matchMedia('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth' });
}

function actOnPost(action: string): void {
  const post = currentPost() ?? (posts().length === 1 ? posts()[0] : null);
  post?.querySelector<HTMLElement>(`[data-action="${action}"]:not(:disabled)`)?.click();
}

/** The search box: focused where it is on screen, else the Search place (which focuses it). */
function focusSearch(): void {
  const box = document.getElementById('search-box');
  if (box) box.focus();
  else navigate('search');
}

/** Listens for the shortcuts while the app frame is shown; `?` calls onHelp. */
export function useShortcuts(onHelp: () => void): void {
  useEffect(() => {
    function onKeyDown(event: KeyboardEvent) {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
      if (document.querySelector('dialog[open]')) return;
      const key = event.key as ShortcutKey;
      if (!SHORTCUT_KEYS.includes(key)) return;
      event.preventDefault();
      if (key === 'j') movePost(1);
      else if (key === 'k') movePost(-1);
      else if (key === 'n') navigate('compose');
      else if (key === '/') focusSearch();
      else if (key === '?') onHelp();
      else actOnPost(POST_ACTIONS[key] ?? '');
    }
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [onHelp]);
}
