// The console's hosted sign-in, the part that runs without AWS's hosted pages: the PKCE
// challenge a verifier makes (RFC 7636, appendix B's example), bundled from the console's own
// source by the pinned esbuild. Run by tests/console.rs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

async function session() {
  const out = await build({
    entryPoints: [fileURLToPath(new URL("../src/session.ts", import.meta.url))],
    bundle: true,
    format: "esm",
    platform: "neutral",
    write: false,
    logLevel: "silent",
  });
  const code = Buffer.from(out.outputFiles[0].contents).toString("base64");
  return import(`data:text/javascript;base64,${code}`);
}

test("the PKCE challenge of RFC 7636's example verifier is the RFC's", async () => {
  const { challenge } = await session();
  assert.equal(
    await challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
    "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
  );
});
