// What the author opened on a post, kept for the session outside the post's component: a content
// warning shown, sensitive media revealed. A long list lets go of the posts far from the screen
// (posts/PostList.tsx), and a place left and opened again draws its posts anew; either way the
// post comes back as the author left it, not closed again. (A poll voted in comes back voted:
// the core tells the window the post changed, and the list holds it anew.)
import { useState } from 'react';

const opened = new Set<string>();

/** A flag kept under `key` for the session (false until set): [value, set]. */
export function useKeptFlag(key: string): [boolean, (value: boolean) => void] {
  const [value, setValue] = useState(() => opened.has(key));
  return [
    value,
    (next: boolean) => {
      if (next) opened.add(key);
      else opened.delete(key);
      setValue(next);
    },
  ];
}
