// A link whose visible text reads as a web address on another server than the one it opens:
// `<a href="https://evil.example/phish">https://bank.example/login</a>`, or Mastodon's trimmed
// form with the claim in the visible part (`<span class="invisible">https://evil.example/</span>
// bank.example/login`). Tern's window has no status bar to show where a link goes, so such a
// link gets its real host beside it (content/sanitize.ts). Text that is no address (a word, a
// @mention, a #tag) claims nothing; a link to the claimed host, or to one of its subdomains, is
// what it says.

// An optional scheme and user part, a host of two or more labels ending in letters, an optional
// port, then the end or a path, query or fragment.
const ADDRESS = /^(https?:\/\/)?(?:[^\s/@]+@)?((?:[\p{L}\p{N}-]+\.)+\p{L}{2,})(?::\d{1,5})?([/?#]\S*)?$/iu;

/** The host (lower-case, punycode) that link text names when it reads as a web address; else null. */
export function claimedHost(text: string): string | null {
  const trimmed = text.trim().replace(/…$/, '');
  if (trimmed === '' || trimmed.startsWith('@') || trimmed.startsWith('#')) return null;
  const match = ADDRESS.exec(trimmed);
  if (match === null) return null;
  const [, scheme, host, rest] = match;
  // A bare name with a dot is often a file ("report.pdf") or a version: only a scheme, "www." or
  // a path makes it an address.
  if (scheme === undefined && rest === undefined && !/^www\./i.test(host!)) return null;
  try {
    return new URL(`http://${host!}`).hostname;
  } catch {
    return null;
  }
}

const bare = (host: string) => host.replace(/^www\./, '');

/** The host `href` really opens when the link's visible text names another one; else null. */
export function hostBehindLink(text: string, href: string): string | null {
  const claimed = claimedHost(text);
  if (claimed === null) return null;
  let actual: string;
  try {
    actual = new URL(href).hostname;
  } catch {
    return null;
  }
  const [a, c] = [bare(actual), bare(claimed)];
  return a === c || a.endsWith(`.${c}`) ? null : actual;
}
