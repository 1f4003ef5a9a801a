// The network judge's reading of answers, alone: which previews look like a captive portal's
// login page, and which pages may show that the network works.
import { describe, expect, it } from 'vitest';
import type { PreviewOutcome } from './fetch-preview';
import { createNetworkJudge } from './network-judge';
import type { LinkPreview } from './opengraph';

const preview = (title: string): LinkPreview => ({ url: 'https://x.example/', title, description: null, image: null, site_name: null });
const answer = (title: string, page: string) => ({ kind: 'preview', preview: preview(title), page }) as const;
const never = async (): Promise<PreviewOutcome> => ({ kind: 'retry', reason: 'not asked' });
const signal = new AbortController().signal;

describe('a preview that may be a portal’s login page', () => {
  it('is one read at the same page for several sites, none of them that page’s own (a portal sending every site to one login address)', () => {
    const judge = createNetworkJudge(never);
    judge.answered('https://news.example/a', answer('Sign in to Café Wi-Fi', 'http://portal.example/login'));
    expect(judge.portalLike(preview('Sign in to Café Wi-Fi'))).toBe(false);
    judge.answered('https://blog.example/b', answer('Sign in to Café Wi-Fi', 'http://portal.example/login'));
    expect(judge.portalLike(preview('Sign in to Café Wi-Fi'))).toBe(true);
  });

  it('is one read at different pages for different sites (a portal answering at each address)', () => {
    const judge = createNetworkJudge(never);
    judge.answered('https://news.example/a', answer('Sign in', 'https://news.example/a'));
    judge.answered('https://blog.example/b', answer('Sign in', 'https://blog.example/b'));
    expect(judge.portalLike(preview('Sign in'))).toBe(true);
  });

  it('is not the same page reached from several links of its own site', () => {
    const judge = createNetworkJudge(never);
    judge.answered('https://news.example/a', answer('An article', 'https://www.news.example/article'));
    judge.answered('https://news.example/b?ref=1', answer('An article', 'https://www.news.example/article'));
    expect(judge.portalLike(preview('An article'))).toBe(false);
  });

  it('is not a page several posts reach through one shortener', () => {
    const judge = createNetworkJudge(never);
    judge.answered('https://short.example/abc', answer('An article', 'https://news.example/article'));
    judge.answered('https://short.example/xyz', answer('An article', 'https://news.example/article'));
    expect(judge.portalLike(preview('An article'))).toBe(false);
  });

  it('is not a page linked directly and through shorteners', () => {
    const judge = createNetworkJudge(never);
    judge.answered('https://short.example/abc', answer('An article', 'https://news.example/article'));
    judge.answered('https://news.example/article', answer('An article', 'https://news.example/article'));
    judge.answered('https://tiny.example/q', answer('An article', 'https://news.example/article'));
    expect(judge.portalLike(preview('An article'))).toBe(false);
  });
});

describe('a control (a page showing the network works)', () => {
  it('is never a page that answered for several sites, even when one of them answers again later', async () => {
    const asked: string[] = [];
    const judge = createNetworkJudge(async (url) => {
      asked.push(url);
      return answer('Sign in', 'http://portal.example/login');
    });
    judge.answered('https://news.example/a', answer('Sign in', 'http://portal.example/login'));
    judge.answered('https://blog.example/b', answer('Sign in', 'http://portal.example/login'));
    // The first site's post looked at again (the page was taken back from it).
    judge.answered('https://news.example/a', answer('Sign in', 'http://portal.example/login'));
    expect(await judge.networkWorks('https://dead.example/c', signal)).toBe(false);
    expect(asked).toEqual([]);
  });

  it('is a page of another host that gives its preview again', async () => {
    const judge = createNetworkJudge(async (url) => answer('Field guide', url));
    judge.answered('https://birds.example/guide', answer('Field guide', 'https://birds.example/guide'));
    expect(await judge.networkWorks('https://dead.example/c', signal)).toBe(true);
  });
});
