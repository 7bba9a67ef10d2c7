import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

/**
 * The owner's console. The build holds no inline script (the module preload
 * polyfill is off: every browser that runs ES modules has it), so the server's
 * CSP can say `script-src 'self'`.
 */
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: "es2022",
  },
});
