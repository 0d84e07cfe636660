/**
 * The team ledger's outbox: observations, and shared decision rows, the server has not acknowledged, kept
 * in a file in the user's own storage so that they outlive the process.
 *
 * @remarks
 * A member who learns while the team's server is unreachable and then closes the window would otherwise
 * lose what they learned. So when a send fails, the batch is written here, each observation with the key
 * the server deduplicates on (member and origin); whoever next reaches the server — this process, a later
 * one, another window on the same workspace — sends the whole file, and removes what was acknowledged.
 * Sending an entry twice (a process killed between the server's commit and the removal, two windows
 * sending the same file) is harmless: the server keeps the first row with that key and ignores the rest.
 * Decision rows a member chose to share (`shareDecisions`) wait here the same way, each with its member;
 * the server stores a decision row once per member, call, attempt, `final` and time, the key
 * {@link decisionKey} names, so a row sent twice is stored once too.
 *
 * The file is JSON lines, one entry a line, rewritten whole under a lock file and renamed into place, like
 * the workspace ledger: a reader sees some writer's complete file, and two writers never drop each
 * other's entries. It is small (only what was learned offline), so rewriting it costs little. A line
 * that does not parse is kept as it is and reported, never dropped: it may be evidence a newer Rung wrote.
 *
 * The file lives in the user's storage (the extension's global storage, the CLI's data folder), one per
 * server and member, never in the workspace: it was once kept in `.rung/`, and a cloned folder that
 * brought a `team-outbox-<hash>.jsonl` had its lines sent as they were, 30 observations under another
 * member's name and a decision row from a member who never opted in to sharing them. What is sent from
 * the file is still only what this member wrote, and decision rows only while the member shares them
 * ({@link OutboxKeeper}).
 */
import { createHash } from 'node:crypto';
import { unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Clock } from '../clock';
import { decisionRowSchema, type DecisionRow } from '../decisions/decision';
import type { Observation } from '../ratings';
import { writeFileAtomic } from '../files/atomicWrite';
import { FileLock, isCode } from '../files/fileLock';
import { ensureFolder, readFileIfExists } from '../files/safeFiles';

/** One observation waiting for the server, with the key that makes sending it again harmless. */
export interface OutboxEntry {
  /** The member who observed it: part of the server's key, so it is kept even if `RUNG_MEMBER` changes. */
  member: string;
  /** The writer's id and sequence number. */
  origin: string;
  observation: Observation;
}

/** One shared decision row waiting for the server, under the member who shared it. */
export interface OutboxDecision {
  /** Part of the server's key, so the row is stored under who shared it even if `RUNG_MEMBER` changes. */
  member: string;
  decision: DecisionRow;
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
 * The key the server deduplicates a shared decision row on (member, call, attempt, `final`, time), as one
 * string that no observation's key can equal (an origin never holds a NUL).
 */
export function decisionKey(entry: OutboxDecision): string {
  const row = entry.decision;
  return ['decision', entry.member, row.call, String(row.escalation.length), String(row.final), String(Math.round(row.at))].join('\u0000');
}

/**
 * The outbox's file for one server and member in the user's storage `userFolder`: `team-outbox-<hash>.jsonl`.
 *
 * @remarks
 * Keyed by the server and database, not the user or password in the URL, so entries learned against
 * one team's server are never sent to another's; and by the member, so what one member (`RUNG_MEMBER`)
 * learned is never sent by another.
 */
export function teamOutboxPath(userFolder: string, url: string, memberId: string): string {
  const identity = `${serverIdentity(url)}\u0000${memberId}`;
  return join(userFolder, `team-outbox-${createHash('sha256').update(identity).digest('hex').slice(0, 12)}.jsonl`);
}

/**
 * Where Rung before this version kept the outbox: in the workspace folder beside the ledger. Only to
 * say that one found there is no longer sent (see the module's remarks).
 */
export function workspaceOutboxPath(workspaceFolder: string, url: string): string {
  return join(workspaceFolder, `team-outbox-${createHash('sha256').update(serverIdentity(url)).digest('hex').slice(0, 12)}.jsonl`);
}

/** The server and database a URL names, without its user or password. */
function serverIdentity(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    // An unparsable URL fails at connect time with pg's own message; any stable name will do until then.
    return url;
  }
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

  /** Every observation in the file, oldest first; none when there is no file. Takes no lock (writers rename whole files). */
  read(): OutboxEntry[] {
    return this.readLines().entries;
  }

  /** Every shared decision row in the file, oldest first. Takes no lock. */
  readDecisions(): OutboxDecision[] {
    return this.readLines().decisions;
  }

  /** Whether the file holds anything to send. */
  get isEmpty(): boolean {
    const lines = this.readLines();
    return lines.entries.length === 0 && lines.decisions.length === 0;
  }

  /** Adds observations not already in the file; throws when the file cannot be written or the lock stayed busy. */
  async add(entries: readonly OutboxEntry[]): Promise<void> {
    await this.addItems(entries.map((entry) => ({ key: outboxKey(entry), line: entry })));
  }

  /** Adds shared decision rows not already in the file; throws like {@link add}. */
  async addDecisions(entries: readonly OutboxDecision[]): Promise<void> {
    await this.addItems(entries.map((entry) => ({ key: decisionKey(entry), line: entry })));
  }

  /**
   * Removes the entries with these keys ({@link outboxKey}, {@link decisionKey}: the server acknowledged
   * them); the file goes when nothing is left.
   */
  async remove(keys: ReadonlySet<string>): Promise<void> {
    if (keys.size === 0) return;
    await this.rewrite((lines) => {
      const kept = lines.raw.filter((_, index) => {
        const key = lines.keys[index];
        return key === undefined || !keys.has(key);
      });
      return kept.length === lines.raw.length ? undefined : kept;
    });
  }

  private async addItems(items: readonly { key: string; line: OutboxEntry | OutboxDecision }[]): Promise<void> {
    if (items.length === 0) return;
    await this.rewrite((lines) => {
      const present = new Set(lines.keys);
      const added = items.filter((item) => {
        if (present.has(item.key)) return false;
        present.add(item.key);
        return true;
      });
      return added.length === 0 ? undefined : [...lines.raw, ...added.map((item) => JSON.stringify(item.line))];
    });
  }

  private async rewrite(change: (lines: ReadLines) => string[] | undefined): Promise<void> {
    ensureFolder(dirname(this.path));
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
    // Never through a symbolic link, nor from a pipe (see safeFiles.ts).
    const bytes = readFileIfExists(this.path);
    if (bytes === undefined) return { raw: [], keys: [], entries: [], decisions: [] };
    const text = bytes.toString('utf8');
    const raw = text.split('\n').filter((line) => line.trim() !== '');
    const entries: OutboxEntry[] = [];
    const decisions: OutboxDecision[] = [];
    const keys = raw.map((line): string | undefined => {
      const parsed = this.parse(line);
      if (parsed === undefined) return undefined;
      if ('observation' in parsed) {
        entries.push(parsed);
        return outboxKey(parsed);
      }
      decisions.push(parsed);
      return decisionKey(parsed);
    });
    return { raw, keys, entries, decisions };
  }

  private parse(line: string): OutboxEntry | OutboxDecision | undefined {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = undefined;
    }
    if (isEntry(value)) return value;
    const decision = asDecision(value);
    if (decision) return decision;
    if (!this.reported.has(line)) {
      this.reported.add(line);
      this.onMalformed?.(
        `a line of the team outbox ${this.path} is neither an observation nor a decision row and was left in place: ${line.slice(0, 120)}`,
      );
    }
    return undefined;
  }
}

interface ReadLines {
  /** Every non-blank line, as written. */
  raw: string[];
  /** The key of the entry each line holds, or undefined for one that does not parse. */
  keys: (string | undefined)[];
  entries: OutboxEntry[];
  decisions: OutboxDecision[];
}

/** The decision entry a line holds, read with the decision log's own schema; undefined when it holds none. */
function asDecision(value: unknown): OutboxDecision | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const entry = value as Record<string, unknown>;
  if (typeof entry.member !== 'string' || !('decision' in entry)) return undefined;
  const parsed = decisionRowSchema.safeParse(entry.decision);
  return parsed.success ? { member: entry.member, decision: parsed.data } : undefined;
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

/** What waits to be sent: observations and shared decision rows, each with its member. */
export interface Unsent {
  observations: OutboxEntry[];
  decisions: OutboxDecision[];
}

/** Who reads an outbox for sending: the member, and whether they share decision rows now. */
export interface OutboxReader {
  memberId: string;
  shareDecisions: boolean;
}

/**
 * The outbox's side of a team ledger's sends: which entries of the file go with the next send, what
 * moves into the file when a send fails, and what leaves it once the server has acknowledged it.
 *
 * @remarks
 * Without an outbox file (none configured, or a read-only ledger) every step does nothing and the
 * queue stays in memory, lost at exit. What this process moved into the file is counted until a send
 * succeeds, so the ledger can say how much is unsent and where it is kept.
 *
 * Only the file's lines under this member are sent, and its decision rows only while the member shares
 * them now: a row is a record of what the member was working on, and whether the team sees it is the
 * member's current choice, not the one some earlier process made. The other lines stay in the file as
 * they are, said once.
 */
export class OutboxKeeper {
  readonly outbox: TeamOutbox | undefined;
  private readonly onNotice: ((message: string) => void) | undefined;
  private readonly reader: OutboxReader;
  /** This process's observations that went to the outbox after a failed send, until one succeeds. */
  private keptObservations: OutboxEntry[] = [];
  /** This process's shared decision rows that went to the outbox, until a send succeeds. */
  private keptDecisions: OutboxDecision[] = [];
  /** What was last said about lines left unsent, so a sync every few seconds does not say it again. */
  private heldSaid = '';

  constructor(outbox: TeamOutbox | undefined, onNotice: ((message: string) => void) | undefined, reader: OutboxReader) {
    this.outbox = outbox;
    this.onNotice = onNotice;
    this.reader = reader;
  }

  /** Observations this process moved into the outbox that no send has carried yet. */
  get observations(): readonly OutboxEntry[] {
    return this.keptObservations;
  }

  /** How many shared decision rows this process moved into the outbox that no send has carried yet. */
  get decisionCount(): number {
    return this.keptDecisions.length;
  }

  /** The file's entries that are this member's to send now and not already in `queued`: they go in the same send. */
  waiting(queued: Unsent): Unsent {
    if (!this.outbox) return { observations: [], decisions: [] };
    const inMemory = new Set(queued.observations.map(outboxKey));
    const decisionsInMemory = new Set(queued.decisions.map(decisionKey));
    const { memberId, shareDecisions } = this.reader;
    const observations = this.outbox.read();
    const decisions = this.outbox.readDecisions();
    const mine = observations.filter((entry) => entry.member === memberId);
    const myDecisions = decisions.filter((entry) => entry.member === memberId);
    this.sayHeld(observations.length - mine.length + decisions.length - myDecisions.length, shareDecisions ? 0 : myDecisions.length);
    return {
      observations: mine.filter((entry) => !inMemory.has(outboxKey(entry))),
      decisions: shareDecisions ? myDecisions.filter((entry) => !decisionsInMemory.has(decisionKey(entry))) : [],
    };
  }

  /** Says, once for each new count, which lines of the file are not sent and why. */
  private sayHeld(others: number, unshared: number): void {
    const said = `${others}:${unshared}`;
    if (said === this.heldSaid || !this.outbox) return;
    this.heldSaid = said;
    const { memberId } = this.reader;
    if (others > 0)
      this.onNotice?.(
        `the team outbox ${this.outbox.path} holds ${others} line${others === 1 ? '' : 's'} under another member than ${memberId}; only what ${memberId} learned is sent, and they were left as they are`,
      );
    if (unshared > 0)
      this.onNotice?.(
        `the team outbox ${this.outbox.path} holds ${unshared} decision row${unshared === 1 ? '' : 's'} shared earlier; they are sent only while this member shares decision rows, and wait there until then`,
      );
  }

  /**
   * Moves the queued observations and shared decision rows into the outbox, where they outlive this
   * process; what cannot be written there stays in `queued` (changed in place), and the user is told.
   */
  async keep(queued: Unsent): Promise<void> {
    if (!this.outbox) return;
    if (queued.observations.length > 0) {
      const moving = queued.observations.slice();
      try {
        await this.outbox.add(moving);
        const moved = new Set(moving.map(outboxKey));
        queued.observations = queued.observations.filter((entry) => !moved.has(outboxKey(entry)));
        this.keptObservations.push(...moving);
      } catch (error) {
        this.onNotice?.(
          `could not write the team outbox ${this.outbox.path} (${error instanceof Error ? error.message : String(error)}); ${moving.length} observations stay in memory only`,
        );
      }
    }
    if (queued.decisions.length > 0) {
      const moving = queued.decisions.slice();
      try {
        await this.outbox.addDecisions(moving);
        const moved = new Set(moving.map(decisionKey));
        queued.decisions = queued.decisions.filter((entry) => !moved.has(decisionKey(entry)));
        this.keptDecisions.push(...moving);
      } catch (error) {
        this.onNotice?.(
          `could not write the team outbox ${this.outbox.path} (${error instanceof Error ? error.message : String(error)}); ${moving.length} decision rows stay in memory only`,
        );
      }
    }
  }

  /**
   * After a send that carried `sent` from the file: removes those entries from it.
   *
   * @remarks
   * Everything this process had put in the outbox was in the file just sent, or was sent by whoever
   * removed it from the file: either way it is on the server now. A file that cannot be rewritten is
   * said and left: its entries are sent again, and the server counts them once.
   */
  async sent(sent: Unsent): Promise<void> {
    this.keptObservations = [];
    this.keptDecisions = [];
    if ((sent.observations.length === 0 && sent.decisions.length === 0) || !this.outbox) return;
    try {
      await this.outbox.remove(new Set([...sent.observations.map(outboxKey), ...sent.decisions.map(decisionKey)]));
    } catch (error) {
      this.onNotice?.(
        `could not clear the team outbox ${this.outbox.path} (${error instanceof Error ? error.message : String(error)}); its entries will be sent again, and counted once`,
      );
    }
  }
}
