// The package as npm would publish it: `npm pack` takes the built client, its types and its
// README, nothing else (no sources or tests), and every `exports` target is in it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL("..", import.meta.url));

test("npm pack takes dist, the README and package.json, and every export's files", () => {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: dir, encoding: "utf8" });
  const [packed] = JSON.parse(out);
  const files = packed.files.map((f) => f.path).sort();
  assert.equal(packed.name, "leaderboard-client");
  for (const path of files) {
    assert.ok(path === "package.json" || path === "README.md" || path.startsWith("dist/"), path);
  }
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  const targets = Object.values(pkg.exports).flatMap((e) => Object.values(e));
  for (const target of [...targets, pkg.types]) {
    assert.ok(files.includes(target.replace(/^\.\//, "")), `${target} is packed`);
  }
  assert.equal(pkg.dependencies, undefined, "no runtime dependencies");
});
