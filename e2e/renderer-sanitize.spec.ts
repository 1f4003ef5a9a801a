// The renderer's own DOMPurify pass (renderer/content/sanitize.ts), the second one every remote
// HTML goes through before it is shown, run in Chromium on hostile HTML: no element or
// attribute that runs script, loads something, styles the page or poses as Tern's own is left.
import { build } from 'esbuild';
import path from 'node:path';
import { expect, test } from '@playwright/test';

const PAYLOADS = [
  '<a href="https://x.example" onclick="alert(1)" style="position:fixed;inset:0">x</a>',
  '<form action="https://evil.example"><input name=q value=1><button formaction="https://e.example">go</button></form>',
  '<svg><a href="javascript:alert(1)"><text>x</text></a></svg>',
  '<math><mi><mglyph><style><img src=x onerror=alert(1)></style></mglyph></mi></math>',
  '<a href="jav&#x09;ascript:alert(1)">j</a><a href=" javascript:alert(1)">k</a><a href="JaVaScRiPt:alert(1)">l</a>',
  '<a href="data:text/html,<script>alert(1)</script>">d</a><a href="file:///etc/passwd">f</a><a href="//evil.example/x">p</a>',
  '<img src="https://evil.example/p.gif" srcset="https://evil.example/p.gif 1x"><picture><source srcset="https://evil.example/a.png"></picture>',
  '<a href="https://x.example" target="_self" rel="opener" ping="https://evil.example/ping">t</a>',
  '<a href="https://evil.example/phish" class="link-host mention">https://bank.example/login<span class="link-host"> (bank.example)</span></a>',
  '<p class="sidebar dialog--open" id="root" name="tern">c</p><style>body{display:none}</style><link rel=stylesheet href="https://evil.example/x.css">',
  '<a href="mailto:a@b.example">m</a><a href="https://ok.example/">o</a>',
  '<iframe src="https://evil.example"></iframe><object data="x"></object><embed src="x"><base href="https://evil.example/">',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>',
  '<template><img src=x onerror=alert(1)></template><textarea><img src=x onerror=alert(1)></textarea>',
];

test('the renderer\'s sanitizer leaves nothing hostile in remote HTML', async ({ page }) => {
  const bundle = await build({
    entryPoints: [path.resolve(import.meta.dirname, '../renderer/content/sanitize.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    globalName: 'RendererSanitize',
    platform: 'browser',
    logLevel: 'silent',
  });
  await page.setContent('<!doctype html><body></body>');
  await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
  const out = await page.evaluate(
    (payloads) => payloads.map((p) => (window as unknown as { RendererSanitize: { sanitizeHtml(s: string): string } }).RendererSanitize.sanitizeHtml(p)),
    PAYLOADS,
  );
  for (const [i, o] of out.entries()) {
    expect(o, PAYLOADS[i]).not.toMatch(/<(img|form|input|button|svg|math|style|iframe|object|embed|base|link|source|picture|template|textarea)\b/i);
    expect(o, PAYLOADS[i]).not.toMatch(/<[^>]*(\son\w+=|javascript:|style=|srcset|ping=|data:)/i);
  }
});
