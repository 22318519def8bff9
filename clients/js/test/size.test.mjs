// The size budget: the client as a game ships it (bundled and minified by esbuild, gzipped) is
// at most 8 KB. The Node-only file storage is not in the browser bundle.
import { test } from "node:test";
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

test("the client is at most 8 KB minified and gzipped", async () => {
  const entry = fileURLToPath(new URL("../dist/index.js", import.meta.url));
  const out = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    write: false,
    logLevel: "silent",
  });
  const code = out.outputFiles[0].contents;
  const gzipped = gzipSync(code, { level: 9 }).length;
  console.log(`client bundle: ${code.length} bytes minified, ${gzipped} gzipped`);
  assert.ok(gzipped <= 8 * 1024, `${gzipped} bytes gzipped`);
  assert.ok(!new TextDecoder().decode(code).includes("node:fs"), "no Node module in the browser bundle");
});
