// Builds the web client into dist/ (committed: the gateway embeds it, and CI rebuilds it and
// checks the committed files are what these sources make). No hashes, no timestamps, no source
// maps: the same sources give the same bytes.
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";

mkdirSync("dist", { recursive: true });
await build({
  entryPoints: ["src/main.tsx"],
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2020",
  jsx: "automatic",
  jsxImportSource: "preact",
  outfile: "dist/app.js",
  legalComments: "none",
  logLevel: "warning",
});
copyFileSync("index.html", "dist/index.html");
