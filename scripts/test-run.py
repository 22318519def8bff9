#!/usr/bin/env python3
"""The test run of the test command (scripts/test): every test of the workspace, from the test
binaries built beforehand by `cargo test --no-run --message-format=json-render-diagnostics`
(whose output is ARTIFACTS), run by two workers at once, each on a DynamoDB Local of its own,
and the doc tests.

Jobs: each crate has one integration-test binary (`it`, a module per test file, linked once);
each of its modules runs as a job of its own, in a process of its own (the binary with the
module's tests named `--exact`), so that a file's tests share a process only with each other,
as when every file was a binary. Unit tests (a crate's lib or bin) are one job each.

Why not `cargo test`: it runs one test binary at a time, and most of them wait on one
emulator's busy core; two emulators and two jobs at once take the run's time down by about
a third. Why not `cargo test -p` halves: a subset of the workspace unifies dependency features
differently and rebuilds them. Each job runs as cargo runs it (from its package's directory,
with `--test-threads`); its output is printed whole when it ends, with its time, so the log
reads like cargo's. The slowest jobs (FIRST) start first so that neither worker is left with
one at the end. Exits 1 if any job failed, after running all of them, and names them; the last
lines say how many tests passed, failed and were ignored (scripts/test then prints each step's
time).
"""

import json
import os
import queue
import re
import subprocess
import sys
import threading
import time

# Test modules that take a minute or more: started first, in this order.
FIRST = [
    "migration",
    "projection",
    "sharded_reads",
    "rank_index",
    "widen_checker",
    "rank_lanes",
    "rank_repair_load",
    "close",
    "league_placement",
    "moderation",
    "widen_resume",
    "fuzz",
]

# libtest's summary line: "test result: ok. 12 passed; 0 failed; 1 ignored; ...".
RESULT = re.compile(r"test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored")


def cargo_env(root):
    """The variables of `.cargo/config.toml`'s `[env]` (its `NAME = "value"` lines), which cargo
    gives every test it runs: a test run here gets them too (RUST_MIN_STACK, opt-level 0's large
    futures)."""
    env, inside = {}, False
    try:
        lines = open(os.path.join(root, ".cargo", "config.toml")).read().splitlines()
    except FileNotFoundError:
        return env
    for line in lines:
        line = line.strip()
        if line.startswith("["):
            inside = line == "[env]"
        elif inside and (m := re.fullmatch(r'([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"([^"]*)"', line)):
            env[m.group(1)] = m.group(2)
    return env


def package_name(package_id):
    """`leaderboard-store` from `path+file:///.../store#leaderboard-store@0.1.0`, and
    `stream-projector` from `path+file:///.../stream-projector#0.1.0` (the directory's name is
    the package's), or from the older `leaderboard-store 0.1.0 (path+file:///...)`."""
    if "#" in package_id:
        url, fragment = package_id.rsplit("#", 1)
        return fragment.split("@")[0] if "@" in fragment else url.rstrip("/").rsplit("/", 1)[1]
    return package_id.split(" ")[0]


def listed_tests(executable, directory, env):
    """The names of the tests in a test binary (`module::test`), as `--list` gives them."""
    out = subprocess.run(
        [executable, "--list", "--format", "terse"], cwd=directory,
        env=dict(os.environ, **env), stdout=subprocess.PIPE, text=True, check=True,
    ).stdout
    return [line[: -len(": test")] for line in out.splitlines() if line.endswith(": test")]


def test_jobs(artifacts):
    """The jobs of the test binaries the build listed: (name, label, command, directory, env),
    an integration-test binary split into one job per module."""
    jobs = []
    with open(artifacts) as lines:
        for line in lines:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if message.get("reason") != "compiler-artifact":
                continue
            target = message["target"]
            if not message["profile"]["test"] or not message.get("executable"):
                continue
            # The benches and examples are built with the tests (clippy's `--all-targets`) to be
            # checked, not run: scripts/bench runs the benches.
            if {"bench", "example"} & set(target["kind"]):
                continue
            package = package_name(message["package_id"])
            executable = message["executable"]
            directory = os.path.dirname(message["manifest_path"])
            label = f"{package} {'/'.join(target['kind'])} {target['name']}"
            env = {"CARGO_MANIFEST_DIR": directory, "CARGO_PKG_NAME": package}
            if target["kind"] != ["test"]:
                jobs.append((target["name"], label, [executable], directory, env))
                continue
            modules = {}
            for name in listed_tests(executable, directory, env):
                modules.setdefault(name.split("::", 1)[0], []).append(name)
            for module, names in sorted(modules.items()):
                command = [executable, "--exact", *names]
                jobs.append((module, f"{label} {module}::", command, directory, env))
    rank = {name: i for i, name in enumerate(FIRST)}
    jobs.sort(key=lambda job: rank.get(job[0], len(FIRST)))
    return [job[1:] for job in jobs]


def main():
    args = sys.argv[1:]
    if len(args) < 3:
        sys.exit("usage: test-run.py ARTIFACTS ENDPOINT ENDPOINT... (TEST_THREADS from the env)")
    artifacts, endpoints = args[0], args[1:]
    threads = os.environ.get("TEST_THREADS", "4")
    root = os.getcwd()
    configured = cargo_env(root)
    listed = [
        (label, command + [f"--test-threads={threads}"], directory, env)
        for label, command, directory, env in test_jobs(artifacts)
    ]
    # The doc tests compile as they run: after the slowest jobs have started, not at the
    # end where they would leave one worker alone.
    doc = ["cargo", "test", "--workspace", "--locked", "--doc", "--", f"--test-threads={threads}"]
    listed.insert(min(len(FIRST), len(listed)), ("doc tests", doc, root, {}))
    jobs = queue.Queue()
    for job in listed:
        jobs.put(job)
    total = jobs.qsize()
    failed, printing = [], threading.Lock()
    counts = [0, 0, 0]  # passed, failed, ignored
    started = time.monotonic()

    def work(endpoint):
        while True:
            try:
                label, command, directory, extra = jobs.get_nowait()
            except queue.Empty:
                return
            env = dict(configured, **os.environ)
            env.update(DYNAMODB_ENDPOINT=endpoint, **extra)
            began = time.monotonic()
            done = subprocess.run(
                command, cwd=directory, env=env, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, text=True, errors="replace",
            )
            took = time.monotonic() - began
            with printing:
                verdict = "ok" if done.returncode == 0 else f"FAILED (exit {done.returncode})"
                print(f"\n==== {label}: {verdict} in {took:.1f} s (on {endpoint})", flush=True)
                print(done.stdout, end="", flush=True)
                for result in RESULT.finditer(done.stdout):
                    for i in range(3):
                        counts[i] += int(result.group(i + 1))
                if done.returncode != 0:
                    failed.append(label)

    workers = [threading.Thread(target=work, args=(e,)) for e in endpoints]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    print(f"\n{total} test jobs in {time.monotonic() - started:.0f} s on {len(endpoints)} "
          f"DynamoDB Locals; {len(failed)} failed", flush=True)
    print(f"tests: {counts[0]} passed, {counts[1]} failed, {counts[2]} ignored", flush=True)
    for label in failed:
        print(f"  failed: {label}", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
