/**
 * Opens the team's ledger, or the workspace file when the team's server cannot be used: the one rule the
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
 */
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Clock } from '../clock';
import type { Ledger } from '../ledger/ledger';
import { MemoryLedger } from '../ledger/memoryLedger';
import { OfflineTeamLedger } from '../ledger/offlineTeamLedger';
import type { LedgerNotice } from '../ledger/notices';
import { loadSqlJs } from '../ledger/sqlJs';
import { redactedUrl, TeamLedger, type TeamLedgerOptions } from '../ledger/teamLedger';
import { teamOutboxPath } from '../ledger/teamOutbox';
import { readMergeSource, WorkspaceLedger } from '../ledger/workspaceLedger';
import { ensureFolder } from '../ledger/safeFiles';

export interface TeamOrWorkspaceOptions {
  url: string;
  /** Kept apart from the URL (the extension's SecretStorage); absent: the URL's, `PGPASSWORD` or `~/.pgpass`, which `pg` reads itself. */
  password: string | undefined;
  memberId: string;
  /** The workspace ledger file: the fallback, and the folder of the outbox and the decision log. */
  workspacePath: string;
  clock: Clock;
  /** Who learns into the fallback, for its message: `this window`, `this run`. */
  subject: string;
  log: (level: 'info' | 'warning' | 'error', message: string) => void;
  /** Told once, for the user to see, when the session falls back to the workspace file (besides the log). */
  notifyFallback?: (message: string) => void;
  /** The workspace file's notices (a damaged file moved aside). */
  onWorkspaceNotice?: (notice: LedgerNotice) => void;
  /** Also send the decision rows to the team (off by default). */
  shareDecisions?: boolean;
  /** Read the team (or the workspace file) and write nothing: ranking. */
  readOnly?: boolean;
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

/** Opens the team ledger, or the workspace file when the server cannot be used; never throws for a server that is down. */
export async function openTeamOrWorkspace(options: TeamOrWorkspaceOptions): Promise<Ledger> {
  const where = redactedUrl(options.url);
  let lastSyncProblem: string | undefined;
  let team: TeamLedger;
  try {
    const teamOptions: TeamLedgerOptions = {
      url: options.url,
      ...(options.password ? { password: options.password } : {}),
      memberId: options.memberId,
      clock: options.clock,
      readOnly: options.readOnly ?? false,
      outboxPath: teamOutboxPath(dirname(options.workspacePath), options.url),
      shareDecisions: options.shareDecisions ?? false,
      ...(options.resetRefusal !== undefined ? { resetRefusal: options.resetRefusal } : {}),
      // Every 10 s while the server is away would bury the log: each reason is said once.
      onSyncError: (error) => {
        if (error.message === lastSyncProblem) return;
        lastSyncProblem = error.message;
        options.log('warning', `the team ledger did not sync (kept for the next try): ${error.message}`);
      },
      onNotice: (message) => options.log('warning', message),
      ...(options.syncIntervalMs !== undefined ? { syncIntervalMs: options.syncIntervalMs } : {}),
      ...(options.connectTimeoutMs !== undefined ? { connectTimeoutMs: options.connectTimeoutMs } : {}),
    };
    team = await TeamLedger.open(teamOptions);
  } catch (error) {
    if (options.fallBackOn && !options.fallBackOn(error)) throw error;
    return openFallback(options, error);
  }
  options.log('info', `${options.readOnly ? 'reading' : 'learning into'} the team ledger ${where} as ${options.memberId}`);
  if (!options.readOnly) await sendWorkspaceEvidence(team, options);
  return team;
}

/** The workspace file instead of the team's server, said once with why and what is not shared. */
async function openFallback(options: TeamOrWorkspaceOptions, error: unknown): Promise<Ledger> {
  // TeamLedger.open names the server (password taken out) before the reason.
  const reason = reasonOf(error);
  const path = options.workspacePath;
  let message: string;
  let ledger: Ledger;
  if (options.readOnly) {
    if (existsSync(path)) {
      message = `${reason}; ${options.subject} reads the workspace ledger ${path} instead, without the team's evidence`;
      ledger = await WorkspaceLedger.open({ path, clock: options.clock, readOnly: true, ...(options.onWorkspaceNotice ? { onNotice: options.onWorkspaceNotice } : {}) });
    } else {
      message = `${reason}; ${options.subject} has no evidence to read (no workspace ledger at ${path}): it ranks as on a cold start`;
      ledger = new MemoryLedger();
    }
  } else {
    const outboxPath = teamOutboxPath(dirname(path), options.url);
    const decisions = options.shareDecisions ? `; its shared decision rows wait in ${outboxPath} until then` : '';
    message = `${reason}; ${options.subject} learns into the workspace ledger ${path} instead, and what it learns is not shared with the team until Rung next opens with the server answering${decisions}`;
    ensureFolder(dirname(path));
    const open = { path, clock: options.clock, ...(options.onWorkspaceNotice ? { onNotice: options.onWorkspaceNotice } : {}) };
    ledger = options.shareDecisions
      ? await OfflineTeamLedger.openOffline(open, { outboxPath, memberId: options.memberId, onOutboxProblem: (problem) => options.log('warning', problem) })
      : await WorkspaceLedger.open(open);
  }
  options.log('warning', message);
  options.notifyFallback?.(message);
  return ledger;
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
async function sendWorkspaceEvidence(team: TeamLedger, options: TeamOrWorkspaceOptions): Promise<void> {
  if (!existsSync(options.workspacePath)) return;
  try {
    const source = readMergeSource(options.workspacePath, await loadSqlJs(), options.clock.now());
    const report = await team.importLedger(source);
    if (report.addedGraded > 0) options.log('info', `sent the team ${report.addedGraded} graded observations from the workspace ledger ${options.workspacePath}`);
  } catch (error) {
    options.log('warning', `could not send the workspace ledger ${options.workspacePath} to the team (${error instanceof Error ? error.message : String(error)}); it stays as it is`);
  }
}
