// Node-only parts: a queue storage in a file, so queued plays survive a restart of the process.
import { readFile, rename, writeFile } from "node:fs/promises";
import type { QueuedPlay, QueueStorage } from "./queue.js";

/** The queue kept in a file of JSON lines (one play a line), replaced whole on every change. */
export class FileStorage implements QueueStorage {
  readonly #path: string;

  constructor(path: string) {
    this.#path = path;
  }

  async load(): Promise<QueuedPlay[]> {
    let text: string;
    try {
      text = await readFile(this.#path, "utf8");
    } catch (e) {
      if ((e as { code?: string }).code === "ENOENT") return [];
      throw e;
    }
    return text
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as QueuedPlay);
  }

  async save(plays: QueuedPlay[]): Promise<void> {
    // Written beside it, then renamed over it: a crash mid-write leaves the old file whole.
    const tmp = `${this.#path}.tmp`;
    await writeFile(tmp, plays.map((p) => JSON.stringify(p) + "\n").join(""), "utf8");
    await rename(tmp, this.#path);
  }
}
