// Whether a failed or odd answer for a link preview is the page's or the network's (previews/
// runner.ts): a captive portal, or a router that lets nothing through while the machine says it
// is online, must not cost every post its tries, nor give every post the portal's login page.
//  * Controls: pages that gave a preview this session (one per host, a few). The network works
//    when one of another host than the page in question gives the same preview again, fetched
//    now; at most one such check per look (reset() starts a look).
//  * Portal pages: a preview that says the same (title and description) as one read at another
//    page for another site is a portal's login page, unless a control shows the network working.
//    So is one read at the same page for several sites when none of them is that page's own site
//    (a portal that sends every site to one login address): each asked for one site and was
//    answered from another. The same page reached from several links of its own site, or through
//    one shortener from several posts, is no sign (one site asked); nor is a page that some link
//    reached on its own site (an article linked directly and through a shortener). A page that
//    answered for several sites is never a control.
import type { PreviewOutcome } from './fetch-preview';
import type { LinkPreview } from './opengraph';

const CONTROLS = 4;
/** Previews remembered by what they say. */
const SEEN_MAX = 500;
const PORTAL_PAGES_MAX = 20;
/** Controls fetched for one check. */
const CHECKS = 2;

/** What a preview says, to compare pages by (their pictures' URLs differ with their addresses). */
export const saying = (preview: LinkPreview): string => JSON.stringify([preview.title, preview.description]);

export interface NetworkJudge {
  /** A new look: the next question is answered afresh. */
  reset(): void;
  /** A page that gave a preview when fetched (not from a cache). */
  answered(url: string, outcome: Extract<PreviewOutcome, { kind: 'preview' }>): void;
  /** Whether the network works now (a control of another host than `url`'s confirms it). */
  networkWorks(url: string, signal: AbortSignal): Promise<boolean>;
  /** Whether a preview may be a portal's login page. */
  portalLike(preview: LinkPreview): boolean;
  /** A preview found to be a portal's page: every later one that says the same is suspect. */
  portalFound(preview: LinkPreview): void;
}

/** A host without its `www.`: example.com sending to www.example.com is still its own site. */
const site = (host: string): string => host.replace(/^www\./i, '').toLowerCase();

export function createNetworkJudge(fetchPreview: (url: string, signal: AbortSignal) => Promise<PreviewOutcome>): NetworkJudge {
  const controls: { url: string; host: string; title: string }[] = [];
  /** By what a preview says: the sites asked for, the pages that answered, the sites whose
   * request ended on another site's page, and whether one ended on its own site's. */
  const seen = new Map<string, { hosts: Set<string>; pages: Set<string>; elsewhere: Set<string>; ownSite: boolean }>();
  const portalPages = new Set<string>();
  let check: Promise<boolean> | null = null;

  /** `shared`: what the page says was read for other sites too (or at a portal's page). */
  function keepControl(url: string, host: string, title: string, shared: boolean): void {
    const sameTitle = controls.some((c) => c.host !== host && c.title === title);
    for (let i = controls.length - 1; i >= 0; i--) if (controls[i]!.host === host || controls[i]!.title === title) controls.splice(i, 1);
    if (sameTitle || shared) return;
    controls.push({ url, host, title });
    if (controls.length > CONTROLS) controls.shift();
  }

  return {
    reset() {
      check = null;
    },
    answered(url, outcome) {
      const host = new URL(url).host;
      const key = saying(outcome.preview);
      const entry = seen.get(key) ?? { hosts: new Set<string>(), pages: new Set<string>(), elsewhere: new Set<string>(), ownSite: false };
      seen.delete(key);
      seen.set(key, entry);
      if (seen.size > SEEN_MAX) seen.delete(seen.keys().next().value!);
      if (entry.hosts.size < 8) entry.hosts.add(host);
      if (entry.pages.size < 8) entry.pages.add(outcome.page);
      if (site(new URL(outcome.page).host) === site(host)) entry.ownSite = true;
      else if (entry.elsewhere.size < 8) entry.elsewhere.add(host);
      // Remembered past the control it removed: a portal's page answering one site again (its
      // post looked at anew once the page was taken back) is no control either.
      keepControl(url, host, outcome.preview.title, entry.hosts.size > 1 || portalPages.has(key));
    },
    networkWorks(url, signal) {
      check ??= (async () => {
        const host = new URL(url).host;
        for (const control of controls.filter((c) => c.host !== host).reverse().slice(0, CHECKS)) {
          const outcome = await fetchPreview(control.url, signal).catch(() => null);
          if (outcome?.kind === 'preview' && outcome.preview.title === control.title) return true;
        }
        return false;
      })();
      return check;
    },
    portalLike(preview) {
      const key = saying(preview);
      const entry = seen.get(key);
      if (portalPages.has(key)) return true;
      if (entry === undefined || entry.hosts.size < 2) return false;
      return entry.pages.size > 1 || (entry.elsewhere.size > 1 && !entry.ownSite);
    },
    portalFound(preview) {
      portalPages.add(saying(preview));
      if (portalPages.size > PORTAL_PAGES_MAX) portalPages.delete(portalPages.values().next().value!);
    },
  };
}
