#!/usr/bin/env python3
"""The test run of the test command (scripts/test): every test binary of the workspace, built
beforehand by `cargo test --no-run --message-format=json-render-diagnostics` (whose output is
ARTIFACTS), run by two workers at once, each on a DynamoDB Local of its own, and the doc tests.

Why not `cargo test`: it runs one test binary at a time, and most of them wait on one
emulator's busy core; two emulators and two binaries at once take the run's time down by about
a third. Why not `cargo test -p` halves: a subset of the workspace unifies dependency features
differently and rebuilds them. Each binary runs as cargo runs it (from its package's directory,
with `--test-threads`); its output is printed whole when it ends, with its time, so the log
reads like cargo's. The slowest binaries (FIRST) start first so that neither worker is left
with one at the end. Exits 1 if any binary failed, after running all of them, and names them.
"""

import json
import os
import queue
import subprocess
import sys
import threading
import time

# Test targets that take a minute or more: started first, in this order.
FIRST = [
    "rank_repair_load",
    "migration",
    "close",
    "widen_checker",
    "projection",
    "rank_index",
    "sharded_reads",
    "widen_resume",
]


def package_name(package_id):
    """`leaderboard-store` from `path+file:///.../store#leaderboard-store@0.1.0`, and
    `stream-projector` from `path+file:///.../stream-projector#0.1.0` (the directory's name is
    the package's), or from the older `leaderboard-store 0.1.0 (path+file:///...)`."""
    if "#" in package_id:
        url, fragment = package_id.rsplit("#", 1)
        return fragment.split("@")[0] if "@" in fragment else url.rstrip("/").rsplit("/", 1)[1]
    return package_id.split(" ")[0]


def test_binaries(artifacts):
    """The jobs of the test binaries the build listed: (label, command, directory, env)."""
    jobs = []
    with open(artifacts) as lines:
        for line in lines:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if message.get("reason") != "compiler-artifact":
                continue
            if not message["profile"]["test"] or not message.get("executable"):
                continue
            package = package_name(message["package_id"])
            target = message["target"]
            directory = os.path.dirname(message["manifest_path"])
            label = f"{package} {'/'.join(target['kind'])} {target['name']}"
            env = {"CARGO_MANIFEST_DIR": directory, "CARGO_PKG_NAME": package}
            jobs.append((target["name"], label, [message["executable"]], directory, env))
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
    listed = [
        (label, command + [f"--test-threads={threads}"], directory, env)
        for label, command, directory, env in test_binaries(artifacts)
    ]
    # The doc tests compile as they run: after the slowest binaries have started, not at the
    # end where they would leave one worker alone.
    doc = ["cargo", "test", "--workspace", "--locked", "--doc", "--", f"--test-threads={threads}"]
    listed.insert(min(len(FIRST), len(listed)), ("doc tests", doc, root, {}))
    jobs = queue.Queue()
    for job in listed:
        jobs.put(job)
    total = jobs.qsize()
    failed, printing = [], threading.Lock()
    started = time.monotonic()

    def work(endpoint):
        while True:
            try:
                label, command, directory, extra = jobs.get_nowait()
            except queue.Empty:
                return
            env = dict(os.environ, DYNAMODB_ENDPOINT=endpoint, **extra)
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
                if done.returncode != 0:
                    failed.append(label)

    workers = [threading.Thread(target=work, args=(e,)) for e in endpoints]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    print(f"\n{total} test jobs in {time.monotonic() - started:.0f} s on {len(endpoints)} "
          f"DynamoDB Locals; {len(failed)} failed", flush=True)
    for label in failed:
        print(f"  failed: {label}", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
