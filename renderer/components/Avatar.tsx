// An actor's avatar. Remote images are not loaded (they would tell every server when the
// author reads, and the CSP allows only Tern's own images): until the media proxy exists, an
// avatar is the initials of the name on a colour chosen from the actor's id, so the same person
// always looks the same.
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

export function Avatar({ name, id, size = 'medium' }: { name: string; id: string; size?: 'small' | 'medium' | 'large' }) {
  return (
    <span className={`avatar avatar--${size} avatar--hue-${hueOf(id)}`} aria-hidden="true">
      {initialsOf(name)}
    </span>
  );
}
