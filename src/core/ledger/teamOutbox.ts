/**
 * The team ledger's outbox: observations the server has not acknowledged, kept in a file in the workspace
 * so that they outlive the process.
 *
 * @remarks
 * A member who learns while the team's server is unreachable and then closes the window would otherwise
 * lose what they learned. So when a send fails, the batch is written here, each observation with the key
 * the server deduplicates on (member and origin); whoever next reaches the server — this process, a later
 * one, another window on the same workspace — sends the whole file, and removes what was acknowledged.
 * Sending an entry twice (a process killed between the server's commit and the removal, two windows
 * sending the same file) is harmless: the server keeps the first row with that key and ignores the rest.
 *
 * The file is JSON lines, one entry a line, rewritten whole under a lock file and renamed into place, like
 * the workspace ledger: a reader sees some writer's complete file, and two writers never drop each
 * other's entries. It is small (only what was learned offline), so rewriting it costs little. A line
 * that does not parse is kept as it is and reported, never dropped: it may be evidence a newer Rung wrote.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Clock } from '../clock';
import type { Observation } from '../ratings';
import { writeFileAtomic } from './atomicWrite';
import { FileLock, isCode } from './fileLock';

/** One observation waiting for the server, with the key that makes sending it again harmless. */
export interface OutboxEntry {
  /** The member who observed it: part of the server's key, so it is kept even if `RUNG_MEMBER` changes. */
  member: string;
  /** The writer's id and sequence number. */
  origin: string;
  observation: Observation;
}

export interface TeamOutboxOptions {
  path: string;
  clock: Clock;
  /** Told once per distinct line that does not parse. */
  onMalformed?: (message: string) => void;
}

/** The key the server deduplicates on, as one string. */
export function outboxKey(entry: { member: string; origin: string }): string {
  return `${entry.member}\u0000${entry.origin}`;
}

/**
 * The outbox's file for one server, beside the workspace ledger: `team-outbox-<hash>.jsonl`.
 *
 * @remarks
 * Keyed by the server and database, not the user or password in the URL, so entries learned against
 * one team's server are never sent to another's.
 */
export function teamOutboxPath(folder: string, url: string): string {
  let identity = url;
  try {
    const parsed = new URL(url);
    identity = `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    // An unparsable URL fails at connect time with pg's own message; any stable name will do until then.
  }
  return join(folder, `team-outbox-${createHash('sha256').update(identity).digest('hex').slice(0, 12)}.jsonl`);
}

export class TeamOutbox {
  readonly path: string;
  private readonly lock: FileLock;
  private readonly onMalformed: ((message: string) => void) | undefined;
  private readonly reported = new Set<string>();

  constructor(options: TeamOutboxOptions) {
    this.path = options.path;
    this.lock = new FileLock({ path: `${options.path}.lock`, clock: options.clock });
    this.onMalformed = options.onMalformed;
  }

  /** Every entry in the file, oldest first; none when there is no file. Takes no lock (writers rename whole files). */
  read(): OutboxEntry[] {
    return this.readLines().entries;
  }

  /** Adds entries not already in the file; throws when the file cannot be written or the lock stayed busy. */
  async add(entries: readonly OutboxEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.rewrite((lines) => {
      const present = new Set(lines.entries.map(outboxKey));
      const added = entries.filter((entry) => !present.has(outboxKey(entry)));
      return added.length === 0 ? undefined : [...lines.raw, ...added.map((entry) => JSON.stringify(entry))];
    });
  }

  /** Removes the entries with these keys (the server acknowledged them); the file goes when nothing is left. */
  async remove(keys: ReadonlySet<string>): Promise<void> {
    if (keys.size === 0) return;
    await this.rewrite((lines) => {
      const kept = lines.raw.filter((_, index) => {
        const entry = lines.byLine[index];
        return entry === undefined || !keys.has(outboxKey(entry));
      });
      return kept.length === lines.raw.length ? undefined : kept;
    });
  }

  private async rewrite(change: (lines: ReadLines) => string[] | undefined): Promise<void> {
    mkdirSync(dirname(this.path), { recursive: true });
    const held = await this.lock.acquire();
    if (!held) throw new Error(`the team outbox ${this.path} stayed locked by another process`);
    try {
      const next = change(this.readLines());
      if (next === undefined) return;
      if (next.length === 0) {
        try {
          unlinkSync(this.path);
        } catch (error) {
          if (!isCode(error, 'ENOENT')) throw error;
        }
        return;
      }
      writeFileAtomic(this.path, Buffer.from(`${next.join('\n')}\n`, 'utf8'));
    } finally {
      held.release();
    }
  }

  private readLines(): ReadLines {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if (isCode(error, 'ENOENT')) return { raw: [], byLine: [], entries: [] };
      throw error;
    }
    const raw = text.split('\n').filter((line) => line.trim() !== '');
    const byLine = raw.map((line) => this.parse(line));
    return { raw, byLine, entries: byLine.filter((entry): entry is OutboxEntry => entry !== undefined) };
  }

  private parse(line: string): OutboxEntry | undefined {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = undefined;
    }
    if (isEntry(value)) return value;
    if (!this.reported.has(line)) {
      this.reported.add(line);
      this.onMalformed?.(`a line of the team outbox ${this.path} is not an observation and was left in place: ${line.slice(0, 120)}`);
    }
    return undefined;
  }
}

interface ReadLines {
  /** Every non-blank line, as written. */
  raw: string[];
  /** The entry each line holds, or undefined for one that does not parse. */
  byLine: (OutboxEntry | undefined)[];
  entries: OutboxEntry[];
}

function isEntry(value: unknown): value is OutboxEntry {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  const observation = entry.observation as Record<string, unknown> | null | undefined;
  return (
    typeof entry.member === 'string' &&
    typeof entry.origin === 'string' &&
    typeof observation === 'object' &&
    observation !== null &&
    typeof observation.model === 'string' &&
    typeof observation.classKey === 'string' &&
    typeof observation.success === 'boolean' &&
    typeof observation.at === 'number'
  );
}
