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
 * What goes to the team is this member's word, so nothing a folder brings is sent unasked: the outbox
 * lives in the user's own storage, not the workspace, and the workspace file is imported only when this
 * machine made it (see LedgerProvenance); any other is sent only when the user says so.
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
import { describeSkippedRows, SKIPPED_ROWS_REASON, type LedgerState } from '../ledger/ledgerState';
import { MemoryLedger } from '../ledger/memoryLedger';
import { OfflineTeamLedger } from '../ledger/offlineTeamLedger';
import type { LedgerNotice } from '../ledger/notices';
import { loadSqlJs } from '../ledger/sqlJs';
import { redactedUrl, TeamLedger, type TeamLedgerOptions } from '../ledger/teamLedger';
import { teamOutboxPath, workspaceOutboxPath } from '../ledger/teamOutbox';
import { readMergeSource, WorkspaceLedger, type WorkspaceLedgerOptions } from '../ledger/workspaceLedger';
import { LedgerProvenance } from './ledgerProvenance';
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
  /**
   * The user's own storage (the extension's global storage, the CLI's data folder), where a folder cannot
   * plant anything: the team's outbox goes there, and the record of the workspace ledger files this
   * machine made. Without it a team store keeps no outbox (what a failed send held is kept in memory
   * only), a new workspace file is not recorded as made here, and a team store asks before sending one.
   */
  userFolder?: string;
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
  /** Send a workspace ledger this machine did not make to the team without asking (the CLI's `--send-workspace-ledger`). */
  sendWorkspaceLedger?: boolean;
  /**
   * Asks the user whether to send a workspace ledger this machine did not make (the editor's
   * notification); the store opens without waiting, and the file is sent when they say so. Undefined: not
   * answered, asked again at the next open.
   */
  askToSendWorkspaceLedger?: (question: string) => Promise<'send' | 'never' | undefined>;
  /** How to send such a file, for the message when nobody is asked (`pass --send-workspace-ledger`). */
  sendWorkspaceLedgerHint?: string;
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
    return exportLedger('jsonl', 'all', this.opened.ledger.entries(), this.decisions.all(), this.opened.ledger.timings?.() ?? []);
  }
}

function requireTeam(options: OpenStoreOptions): TeamStoreOptions {
  if (!options.team) throw new Error('a team store needs the member it learns as (OpenStoreOptions.team)');
  return options.team;
}

/** Where a workspace file this store makes is recorded as made here; nowhere without the user's storage. */
function recordCreation(path: string, options: OpenStoreOptions): Pick<WorkspaceLedgerOptions, 'onCreated'> {
  const userFolder = options.userFolder;
  if (!userFolder) return {};
  return {
    onCreated: (ledgerId) => {
      try {
        new LedgerProvenance(userFolder).record(path, ledgerId, 'made-here');
      } catch (error) {
        // The ledger is saved; only the record is missing, and a team store then asks before sending the file.
        options.log('warning', `could not record in ${userFolder} that the ledger ${path} was made here (${reasonOf(error)})`);
      }
    },
  };
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
    ...recordCreation(path, options),
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
  const userFolder = options.userFolder;
  const outboxPath = userFolder === undefined ? undefined : teamOutboxPath(userFolder, url, team.memberId);
  sayWorkspaceOutbox(workspacePath, url, options);
  let lastSyncProblem: string | undefined;
  let ledger: TeamLedger;
  try {
    const teamOptions: TeamLedgerOptions = {
      url,
      ...(team.password ? { password: team.password } : {}),
      memberId: team.memberId,
      clock: options.clock,
      readOnly: options.readOnly ?? false,
      ...(outboxPath ? { outboxPath } : {}),
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
    return openFallback(outboxPath, workspacePath, options, team, error);
  }
  options.log('info', `${options.readOnly ? 'reading' : 'learning into'} the team ledger ${where} as ${team.memberId}`);
  if (!options.readOnly)
    await sendWorkspaceEvidence(
      ledger,
      where,
      workspacePath,
      options,
      team,
      userFolder === undefined ? undefined : new LedgerProvenance(userFolder),
    );
  return { ledger, reset: (classKey) => ledger.reset(classKey), share: (row) => ledger.shareDecision(row) };
}

/** The workspace file instead of the team's server, said once with why and what is not shared. */
async function openFallback(
  outboxPath: string | undefined,
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
    const decisions =
      team.shareDecisions && outboxPath
        ? `; its shared decision rows wait in ${outboxPath} until then`
        : team.shareDecisions
          ? '; its shared decision rows stay in its decision log only, as there is no user folder to keep them in for the team'
          : '';
    message = `${reason}; ${team.subject} learns into the workspace ledger ${path} instead, and what it learns is not shared with the team until Rung next opens with the server answering${decisions}`;
    if (team.shareDecisions && outboxPath) {
      ensureFolder(dirname(path));
      const open = {
        path,
        clock: options.clock,
        ...(options.onNotice ? { onNotice: options.onNotice } : {}),
        ...(options.schedule ? { schedule: options.schedule } : {}),
        ...recordCreation(path, options),
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

/**
 * Says that the workspace holds an outbox an earlier Rung kept there, which is no longer sent: a folder's
 * files are not this member's word (see teamOutbox.ts).
 */
function sayWorkspaceOutbox(workspacePath: string, url: string, options: OpenStoreOptions): void {
  const planted = workspaceOutboxPath(dirname(workspacePath), url);
  if (!existsSync(planted)) return;
  options.log(
    'warning',
    `the workspace holds a team outbox ${planted}, which Rung no longer sends: it now keeps its outbox in your own storage, as a folder could bring one with lines under any member's name; it was left as it is`,
  );
}

/**
 * Imports the workspace file, if any, when this machine made it or the user says to: what sessions that
 * fell back learned. Importing it again adds nothing.
 *
 * @remarks
 * A file this machine did not make (one that came with the folder, or one made before Rung kept the
 * record) is asked about: in the editor the store opens at once and the file is sent when the user says
 * so; the CLI sends it only with its flag. The answer is recorded, so the same file is asked about once.
 */
async function sendWorkspaceEvidence(
  team: TeamLedger,
  where: string,
  workspacePath: string,
  options: OpenStoreOptions,
  teamOptions: TeamStoreOptions,
  provenance: LedgerProvenance | undefined,
): Promise<void> {
  if (!existsSync(workspacePath)) return;
  let source: LedgerState;
  try {
    source = readMergeSource(workspacePath, await loadSqlJs(), options.clock.now());
  } catch (error) {
    options.log('warning', `could not send the workspace ledger ${workspacePath} to the team (${reasonOf(error)}); it stays as it is`);
    return;
  }
  let graded = 0;
  for (const entry of source.ratings.values()) graded += entry.graded;
  if (graded === 0) return;
  const known = provenance?.of(workspacePath, source.ledgerId) ?? 'unknown';
  if (known === 'made-here' || known === 'send') {
    await importWorkspace(team, source, workspacePath, options);
    return;
  }
  if (known === 'never') return;
  const question = `the workspace ledger ${workspacePath} holds ${graded} graded observation${graded === 1 ? '' : 's'} that were not learned on this machine (it may have come with the folder): send them to the team ${where} as ${teamOptions.memberId}'s evidence?`;
  const record = (answer: 'send' | 'never'): void => {
    try {
      provenance?.record(workspacePath, source.ledgerId, answer);
    } catch (error) {
      options.log('warning', `could not record the answer about ${workspacePath} (${reasonOf(error)}); it will be asked again`);
    }
  };
  if (teamOptions.sendWorkspaceLedger) {
    record('send');
    await importWorkspace(team, source, workspacePath, options);
    return;
  }
  if (teamOptions.askToSendWorkspaceLedger) {
    // Asked without holding the open: the answer may come minutes later, or never.
    void teamOptions.askToSendWorkspaceLedger(question).then(
      async (answer) => {
        if (answer === undefined) return;
        record(answer);
        if (answer === 'send') await importWorkspace(team, source, workspacePath, options);
      },
      (error: unknown) => options.log('warning', `could not ask about the workspace ledger ${workspacePath} (${reasonOf(error)})`),
    );
    return;
  }
  options.log(
    'warning',
    `the workspace ledger ${workspacePath} holds ${graded} graded observation${graded === 1 ? '' : 's'} that were not learned on this machine (it may have come with the folder); they were not sent to the team${teamOptions.sendWorkspaceLedgerHint ? ` (${teamOptions.sendWorkspaceLedgerHint})` : ''}`,
  );
}

/** Sends `source` (read from the workspace file) to the team, saying what it added; a failure is said, never thrown. */
async function importWorkspace(team: TeamLedger, source: LedgerState, workspacePath: string, options: OpenStoreOptions): Promise<void> {
  try {
    const skipped = describeSkippedRows(source.skipped);
    if (skipped !== undefined)
      options.log('warning', `left out ${skipped} of the workspace ledger ${workspacePath} that Rung cannot use (${SKIPPED_ROWS_REASON})`);
    const report = await team.importLedger(source);
    if (report.addedGraded > 0)
      options.log('info', `sent the team ${report.addedGraded} graded observations from the workspace ledger ${workspacePath}`);
  } catch (error) {
    options.log('warning', `could not send the workspace ledger ${workspacePath} to the team (${reasonOf(error)}); it stays as it is`);
  }
}
