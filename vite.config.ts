// Vite config for the renderer: root renderer/, output dist/renderer/. `base: './'` keeps every
// asset URL relative so the same build loads from Electron's app:// protocol and from the
// headless server. The Content-Security-Policy lives in renderer/index.html and is strict for
// the build; only the dev server (which needs inline scripts for React Refresh and inline
// styles for CSS hot reload) gets a relaxed copy.
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

/** Dev-server only: let Vite's inline preamble, injected styles and HMR socket through. */
function relaxCspForDevServer(): Plugin {
  return {
    name: 'tern:relax-csp-for-dev-server',
    apply: 'serve',
    transformIndexHtml(html) {
      return html
        .replace("script-src 'self'", "script-src 'self' 'unsafe-inline'")
        .replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")
        .replace("connect-src 'self'", "connect-src 'self' ws: wss:");
    },
  };
}

export default defineConfig({
  root: fileURLToPath(new URL('./renderer', import.meta.url)),
  base: './',
  plugins: [react(), relaxCspForDevServer()],
  build: {
    outDir: fileURLToPath(new URL('./dist/renderer', import.meta.url)),
    emptyOutDir: true,
    target: 'es2023',
    // The polyfill would be an extra script; every Chromium Tern runs in supports modulepreload.
    modulePreload: { polyfill: false },
    // Assets stay files served by 'self', but the icons' shapes (renderer/icons/, a few hundred
    // bytes each), inlined as data: URLs (img-src allows data:) into the CSS: a mask is fetched
    // in CORS mode, which a file from the app:// protocol may not pass, and an inlined icon is
    // drawn with the first frame.
    assetsInlineLimit: (file) => /[\\/]renderer[\\/]icons[\\/][\w-]+\.svg$/.test(file),
  },
});
