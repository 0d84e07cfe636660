/**
 * Opens a {@link Store} at a {@link StoreLocation}: memory, a workspace file with its decision log beside
 * it, or the team's server — or the workspace file when the server cannot be used, the one rule the
 * extension and the `rung` CLI both follow when the server is down.
 *
 * @remarks
 * A window must open, and a `rung chat` or `rung replay` must run, even when the team's server does not
 * answer (a train, a VPN that is down, a password that changed). It then learns into the workspace file,
 * as without a team, and says so once; the next open that reaches the server imports that file's own
 * evidence, which counts what was learned offline once however often it runs (see
 * TeamLedger.importLedger); decision rows the member shares wait in the team's outbox (see
 * OfflineTeamLedger). A read-only open (ranking) reads the workspace file if there is one and writes
 * nothing, not even the file.
 *
 * Whatever the ratings are kept in, the decision rows of a workspace stay in its decision log, beside
 * the workspace file, on that ledger's flush timer when it has one, so a call's rows and the
 * observations it taught land in one wake-up.
 */
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Clock } from '../clock';
import type { DecisionRow } from '../decisions/decision';
import { checkDecisionLogFiles, DecisionLog, decisionLogPath } from '../ledger/decisionLog';
import type { FlushTimer, Scheduler } from '../files/flushTimer';
import type { Ledger } from '../ledger/ledger';
import { exportLedger } from '../ledger/ledgerExport';
import { describeSkippedRows, SKIPPED_ROWS_REASON } from '../ledger/ledgerState';
import { MemoryLedger } from '../ledger/memoryLedger';
import { OfflineTeamLedger } from '../ledger/offlineTeamLedger';
import type { LedgerNotice } from '../ledger/notices';
import { loadSqlJs } from '../ledger/sqlJs';
import { redactedUrl, TeamLedger, type TeamLedgerOptions } from '../ledger/teamLedger';
import { teamOutboxPath } from '../ledger/teamOutbox';
import { readMergeSource, WorkspaceLedger } from '../ledger/workspaceLedger';
import { ensureFolder } from '../files/safeFiles';
import { FileDecisions, MemoryDecisions } from './decisions';
import type { Decisions, Store } from './store';
import type { StoreLocation } from './storeLocation';

export type StoreLogLevel = 'info' | 'warning' | 'error';

export interface OpenStoreOptions {
  clock: Clock;
  /** What the user should hear about opening: the server reached, the fallback taken and why. */
  log: (level: StoreLogLevel, message: string) => void;
  /** The workspace file's notices (a damaged file moved aside). */
  onNotice?: (notice: LedgerNotice) => void;
  /**
   * The decision log's notices (a failed background write, a lock taken over). A failed write is not
   * told once the store is closing: the close throws it, and "will retry" would no longer be true.
   */
  onDecisionNotice?: (notice: LedgerNotice) => void;
  /** Read the ratings and write nothing, not even a file: ranking. */
  readOnly?: boolean;
  /** The workspace file's timer (tests drive it). */
  schedule?: Scheduler;
  /** How a team location is opened; needed for one. */
  team?: TeamStoreOptions;
}

export interface TeamStoreOptions {
  /** Kept apart from the URL (the extension's SecretStorage); absent: the URL's, `PGPASSWORD` or `~/.pgpass`, which `pg` reads itself. */
  password?: string;
  memberId: string;
  /** Who learns into the fallback, for its message: `this window`, `this run`. */
  subject: string;
  /** Told once, for the user to see, when the store falls back to the workspace file (besides the log). */
  notifyFallback?: (message: string) => void;
  /** Also send the decision rows to the team (off by default). */
  shareDecisions?: boolean;
  /** Refuse a reset of the team's ledger with this message (a palette command in one window). */
  resetRefusal?: string;
  /** Background flush interval for the team ledger, ms (its default unless given; tests pass 0). */
  syncIntervalMs?: number;
  /** See TEAM_CONNECT_TIMEOUT_MS; tests shorten it. */
  connectTimeoutMs?: number;
  /**
   * Which failures to open fall back to the workspace file; the others are thrown. All of them unless
   * given: a window must open whatever the server says.
   */
  fallBackOn?: (error: unknown) => boolean;
}

/** The ratings as opened, with what only their own kind can do. */
interface OpenedRatings {
  ledger: Ledger;
  reset: (classKey?: string) => Promise<number>;
  /** Takes a copy of a decision row for the team; absent where nobody opted in. */
  share?: (row: DecisionRow) => void;
  /** The workspace file's timer, for the decision log to land with it. */
  flushTimer?: FlushTimer;
}

/** Opens the store at `location`; for a team, the workspace file when the server cannot be used (never throws for a server that is down). */
export async function openStore(location: StoreLocation, options: OpenStoreOptions): Promise<Store> {
  if (location.kind === 'memory') {
    const ledger = new MemoryLedger();
    return new OpenedStore(location, { ledger, reset: (classKey) => ledger.reset(classKey) }, new MemoryDecisions());
  }
  const workspacePath = location.kind === 'file' ? location.path : location.fallbackPath;
  const ratings =
    location.kind === 'file'
      ? await openWorkspaceFile(workspacePath, options)
      : await openTeamOrWorkspace(location.url, workspacePath, options, requireTeam(options));
  let closing = false;
  const logPath = decisionLogPath(workspacePath);
  try {
    // A log that could not be written (a symbolic link a cloned folder put there) is said now, before
    // any call is made and paid for whose row would be refused.
    if (!options.readOnly) checkDecisionLogFiles(logPath);
  } catch (error) {
    await ratings.ledger.close();
    throw error;
  }
  const onDecisionNotice = options.onDecisionNotice;
  const log = new DecisionLog({
    path: logPath,
    clock: options.clock,
    ...(ratings.flushTimer ? { flushTimer: ratings.flushTimer } : {}),
    ...(onDecisionNotice
      ? {
          onNotice: (notice: LedgerNotice) => {
            if (closing && notice.kind === 'save-failed') return;
            onDecisionNotice(notice);
          },
        }
      : {}),
  });
  return new OpenedStore(location, ratings, new FileDecisions(log, ratings.share), () => (closing = true));
}

class OpenedStore implements Store {
  constructor(
    readonly location: StoreLocation,
    private readonly opened: OpenedRatings,
    readonly decisions: Decisions,
    private readonly onClosing: () => void = () => {},
  ) {}

  get ratings(): Ledger {
    return this.opened.ledger;
  }

  async flush(): Promise<void> {
    await this.opened.ledger.flush();
    await this.decisions.flush();
  }

  async close(): Promise<void> {
    this.onClosing();
    try {
      await this.opened.ledger.close();
    } finally {
      await this.decisions.close();
    }
  }

  reset(classKey?: string): Promise<number> {
    return this.opened.reset(classKey);
  }

  async export(): Promise<string> {
    return exportLedger('jsonl', 'all', this.opened.ledger.entries(), this.decisions.all());
  }
}

function requireTeam(options: OpenStoreOptions): TeamStoreOptions {
  if (!options.team) throw new Error('a team store needs the member it learns as (OpenStoreOptions.team)');
  return options.team;
}

/** The workspace file, its folder made first unless read-only. */
async function openWorkspaceFile(path: string, options: OpenStoreOptions): Promise<OpenedRatings> {
  if (!options.readOnly) ensureFolder(dirname(path));
  const ledger = await WorkspaceLedger.open({
    path,
    clock: options.clock,
    ...(options.readOnly ? { readOnly: true } : {}),
    ...(options.onNotice ? { onNotice: options.onNotice } : {}),
    ...(options.schedule ? { schedule: options.schedule } : {}),
  });
  return { ledger, reset: (classKey) => ledger.reset(classKey), flushTimer: ledger.flushTimer };
}

/** Opens the team ledger, or the workspace file when the server cannot be used. */
async function openTeamOrWorkspace(
  url: string,
  workspacePath: string,
  options: OpenStoreOptions,
  team: TeamStoreOptions,
): Promise<OpenedRatings> {
  const where = redactedUrl(url);
  let lastSyncProblem: string | undefined;
  let ledger: TeamLedger;
  try {
    const teamOptions: TeamLedgerOptions = {
      url,
      ...(team.password ? { password: team.password } : {}),
      memberId: team.memberId,
      clock: options.clock,
      readOnly: options.readOnly ?? false,
      outboxPath: teamOutboxPath(dirname(workspacePath), url),
      shareDecisions: team.shareDecisions ?? false,
      ...(team.resetRefusal !== undefined ? { resetRefusal: team.resetRefusal } : {}),
      // Every 10 s while the server is away would bury the log: each reason is said once.
      onSyncError: (error) => {
        if (error.message === lastSyncProblem) return;
        lastSyncProblem = error.message;
        options.log('warning', `the team ledger did not sync (kept for the next try): ${error.message}`);
      },
      onNotice: (message) => options.log('warning', message),
      ...(team.syncIntervalMs !== undefined ? { syncIntervalMs: team.syncIntervalMs } : {}),
      ...(team.connectTimeoutMs !== undefined ? { connectTimeoutMs: team.connectTimeoutMs } : {}),
    };
    ledger = await TeamLedger.open(teamOptions);
  } catch (error) {
    if (team.fallBackOn && !team.fallBackOn(error)) throw error;
    return openFallback(url, workspacePath, options, team, error);
  }
  options.log('info', `${options.readOnly ? 'reading' : 'learning into'} the team ledger ${where} as ${team.memberId}`);
  if (!options.readOnly) await sendWorkspaceEvidence(ledger, workspacePath, options);
  return { ledger, reset: (classKey) => ledger.reset(classKey), share: (row) => ledger.shareDecision(row) };
}

/** The workspace file instead of the team's server, said once with why and what is not shared. */
async function openFallback(
  url: string,
  path: string,
  options: OpenStoreOptions,
  team: TeamStoreOptions,
  error: unknown,
): Promise<OpenedRatings> {
  // TeamLedger.open names the server (password taken out) before the reason.
  const reason = reasonOf(error);
  let message: string;
  let ratings: OpenedRatings;
  if (options.readOnly) {
    if (existsSync(path)) {
      message = `${reason}; ${team.subject} reads the workspace ledger ${path} instead, without the team's evidence`;
      ratings = await openWorkspaceFile(path, options);
    } else {
      message = `${reason}; ${team.subject} has no evidence to read (no workspace ledger at ${path}): it ranks as on a cold start`;
      const ledger = new MemoryLedger();
      ratings = { ledger, reset: (classKey) => ledger.reset(classKey) };
    }
  } else {
    const outboxPath = teamOutboxPath(dirname(path), url);
    const decisions = team.shareDecisions ? `; its shared decision rows wait in ${outboxPath} until then` : '';
    message = `${reason}; ${team.subject} learns into the workspace ledger ${path} instead, and what it learns is not shared with the team until Rung next opens with the server answering${decisions}`;
    if (team.shareDecisions) {
      ensureFolder(dirname(path));
      const open = {
        path,
        clock: options.clock,
        ...(options.onNotice ? { onNotice: options.onNotice } : {}),
        ...(options.schedule ? { schedule: options.schedule } : {}),
      };
      const ledger = await OfflineTeamLedger.openOffline(open, {
        outboxPath,
        memberId: team.memberId,
        onOutboxProblem: (problem) => options.log('warning', problem),
      });
      ratings = {
        ledger,
        reset: (classKey) => ledger.reset(classKey),
        share: (row) => ledger.shareDecision(row),
        flushTimer: ledger.flushTimer,
      };
    } else {
      ratings = await openWorkspaceFile(path, options);
    }
  }
  options.log('warning', message);
  team.notifyFallback?.(message);
  return ratings;
}

/**
 * The error's message, never empty.
 *
 * @remarks
 * Node reports a connection refused on every address a host name resolved to as an AggregateError whose
 * own message is empty; its parts say what happened.
 */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.message.trim() !== '' && !/: $/.test(error.message)) return error.message;
  const parts = error.cause instanceof AggregateError ? error.cause.errors : error instanceof AggregateError ? error.errors : [];
  const said = parts.map((part: unknown) => (part instanceof Error ? part.message : String(part))).filter((text) => text !== '');
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return `${error.message}${said.length > 0 ? said.join('; ') : typeof code === 'string' ? code : 'no reason given'}`;
}

/** Imports the workspace file, if any: what sessions that fell back learned; importing it again adds nothing. */
async function sendWorkspaceEvidence(team: TeamLedger, workspacePath: string, options: OpenStoreOptions): Promise<void> {
  if (!existsSync(workspacePath)) return;
  try {
    const source = readMergeSource(workspacePath, await loadSqlJs(), options.clock.now());
    const skipped = describeSkippedRows(source.skipped);
    if (skipped !== undefined)
      options.log('warning', `left out ${skipped} of the workspace ledger ${workspacePath} that Rung cannot use (${SKIPPED_ROWS_REASON})`);
    const report = await team.importLedger(source);
    if (report.addedGraded > 0)
      options.log('info', `sent the team ${report.addedGraded} graded observations from the workspace ledger ${workspacePath}`);
  } catch (error) {
    options.log(
      'warning',
      `could not send the workspace ledger ${workspacePath} to the team (${error instanceof Error ? error.message : String(error)}); it stays as it is`,
    );
  }
}
