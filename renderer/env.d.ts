// Types for what Vite adds to the renderer's modules (CSS imports, import.meta.env).
/// <reference types="vite/client" />
