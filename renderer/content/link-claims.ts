// A link whose visible text reads as a web address on another server than the one it opens:
// `<a href="https://evil.example/phish">https://bank.example/login</a>`, or Mastodon's trimmed
// form with the claim in the visible part (`<span class="invisible">https://evil.example/</span>
// bank.example/login`). Tern's window has no status bar to show where a link goes, so such a
// link gets its real host beside it (content/sanitize.ts). The text is read as it looks: width
// and compatibility forms folded (a fullwidth dot is a dot), invisible format characters (a
// zero-width space, a soft hyphen) taken out, and every word of it looked at ("Log in:
// https://bank.example/login"). Text that is no address (a word, a @mention, a #tag, a file
// name) claims nothing; a link to the claimed host, or to one of its subdomains, is what it says.

// An optional scheme and user part, a host of two or more labels ending in letters, an optional
// port, then the end or a path, query or fragment.
const ADDRESS = /^(https?:\/\/)?(?:[^\s/@]+@)?((?:[\p{L}\p{N}-]+\.)+\p{L}{2,})(?::\d{1,5})?([/?#]\S*)?$/iu;
// Around a word: brackets, quotes and sentence punctuation are not part of an address.
const WRAPPING = /^[\s([{<"'«‹“‘]+|[\s)\]}>"'»›”’.,;:!?]+$/gu;

/** The text as a reader sees it: compatibility forms folded, invisible format characters out. */
function asSeen(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/\p{Cf}/gu, '')
    .replace(/[\u2044\u2215\u29f8]/g, '/'); // slashes NFKC leaves as they are (fraction, division, big solidus)
}

/** The host (lower-case, punycode) one word names when it reads as a web address; else null. */
function hostOfWord(word: string): string | null {
  const trimmed = word.replace(WRAPPING, '').replace(/…$/, '');
  if (trimmed === '' || trimmed.startsWith('@') || trimmed.startsWith('#')) return null;
  const match = ADDRESS.exec(trimmed);
  if (match === null) return null;
  const [, scheme, host, rest] = match;
  // A bare name with a dot is often a file ("report.pdf", "main.rs#L42") or a version: only a
  // scheme, "www." or a path makes it an address.
  if (scheme === undefined && !rest?.startsWith('/') && !/^www\./i.test(host!)) return null;
  try {
    return new URL(`http://${host!}`).hostname || null;
  } catch {
    return null;
  }
}

/** The hosts that link text names (each word that reads as a web address). */
export function claimedHosts(text: string): string[] {
  return asSeen(text)
    .split(/\s+/)
    .map(hostOfWord)
    .filter((host): host is string => host !== null);
}

/** The first host that link text names, or null (tests, and a single claim). */
export function claimedHost(text: string): string | null {
  return claimedHosts(text)[0] ?? null;
}

const bare = (host: string) => host.replace(/^www\./, '');

/** The host `href` really opens when the link's visible text names another one; else null. */
export function hostBehindLink(text: string, href: string): string | null {
  let actual: string;
  try {
    actual = new URL(href).hostname;
  } catch {
    return null;
  }
  if (actual === '') return null; // mailto: and the like name no server
  const a = bare(actual);
  return claimedHosts(text).some((claimed) => a !== bare(claimed) && !a.endsWith(`.${bare(claimed)}`)) ? actual : null;
}
