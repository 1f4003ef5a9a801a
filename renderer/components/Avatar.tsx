// An actor's avatar: their picture through Tern's media proxy (`src`, a path on Tern's own
// origin — the page never asks the remote server, which would learn when the author reads),
// else, or while it cannot be loaded, the initials of the name on a colour chosen from the
// actor's id, so the same person always looks the same.
import { useState } from 'react';

const HUES = 8;

function initialsOf(name: string): string {
  const words = name
    .replace(/^@/, '')
    .split(/[\s@._-]+/u)
    .filter((w) => /\p{L}|\p{N}/u.test(w));
  const letters = words.slice(0, 2).map((w) => [...w.replace(/[^\p{L}\p{N}]/gu, '')][0] ?? '');
  return letters.join('').toLocaleUpperCase() || '?';
}

function hueOf(key: string): number {
  let hash = 0;
  for (const char of key) hash = (hash * 31 + char.codePointAt(0)!) >>> 0;
  return hash % HUES;
}

export function Avatar({ name, id, size = 'medium', src }: { name: string; id: string; size?: 'small' | 'medium' | 'large'; src?: string | null | undefined }) {
  const [failed, setFailed] = useState<string | null>(null);
  if (src && failed !== src) {
    return <img className={`avatar avatar--${size} avatar--hue-${hueOf(id)}`} src={src} alt="" aria-hidden="true" decoding="async" onError={() => setFailed(src)} />;
  }
  return (
    <span className={`avatar avatar--${size} avatar--hue-${hueOf(id)}`} aria-hidden="true">
      {initialsOf(name)}
    </span>
  );
}
