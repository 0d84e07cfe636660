/**
 * `rung ledger …`: look into the workspace ledger, export it, reset it, or fold a teammate's into it.
 *
 * @remarks
 * Every subcommand takes `--ledger FILE` (default `.rung/ledger.sqlite` under the working directory)
 * and the decision log is the `decisions.jsonl` beside it. `--ledger postgres://…` names a team's
 * ledger instead: the ratings are the team's, and the decision log is still this workspace's (decisions
 * go to the server only with a run's `--share-decisions`, and `decisions --team` reads those), the one a team run writes beside the workspace's ledger file. Reading commands open the ledger read-only,
 * so inspecting a workspace never migrates, repairs or otherwise writes it. Exit codes as every `rung`
 * command (see io.ts): 0 done, 1 the command failed (a missing ledger, a refused reset, a folder it
 * cannot write), 2 the arguments were wrong.
 */
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Clock } from '../core/clock';
import { ability } from '../core/ratings';
import { durationWords, timingFigures } from '../core/timing';
import { DecisionLog, decisionLogPath, DEFAULT_RETENTION } from '../core/ledger/decisionLog';
import { exportLedger, type ExportFormat, type ExportWhat } from '../core/ledger/ledgerExport';
import { ratingKey, type RatingEntry, type TimingEntry } from '../core/ledger/ledger';
import { describeSkippedRows, matchesClass, SKIPPED_ROWS_REASON } from '../core/ledger/ledgerState';
import { loadSqlJs } from '../core/ledger/sqlJs';
import { DEFAULT_LEDGER_PATH, readMergeSource, WorkspaceLedger, type MergeReport } from '../core/ledger/workspaceLedger';
import { redactedUrl, type TeamLedger } from '../core/ledger/teamLedger';
import { cliStoreLocation, openTeamLedger } from './cliStore';
import { workspaceFileOf, type StoreLocation } from '../core/store/storeLocation';
import { decisionSource, LIVE_SOURCE, type DecisionRow } from '../core/decisions/decision';
import { decisionLogBeside } from './decisionLogBeside';
import { printable, printableJson, printableLines } from '../core/terminalText';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, isParseArgsError, UsageError } from './io';
import { asksForHelp, commandList, formatHelp, parseCommandArgs, usageLine, type CommandUsage } from './usage';
import { explainingRefusal, explainWriteRefusal } from './writeRefusal';
import { refuseNonSqliteLedger } from './refuseNonSqliteLedger';
import { ensureFolder } from '../core/files/safeFiles';
import { LedgerProvenance } from '../core/store/ledgerProvenance';
import { userDataFolder } from './userDataFolder';

export interface LedgerCommandIo {
  env?: Record<string, string | undefined>;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  cwd: string;
  clock: Clock;
}

const DAY_MS = 24 * 60 * 60 * 1000;

const LEDGER_FLAG = {
  ledger: {
    type: 'string',
    value: 'FILE|URL',
    description: `the ledger file (default: ${DEFAULT_LEDGER_PATH} under the current folder), or a team's server (postgres://user@host/db)`,
  },
} as const;

/** Each `rung ledger` subcommand: its flags, declared once for its parser and its `--help`. */
export const LEDGER_COMMANDS = {
  show: {
    name: 'rung ledger show',
    summary: "Prints the ratings: model, class, rating, ability, graded and ok counts, and each model's mean time a call on this machine.",
    flags: {
      ...LEDGER_FLAG,
      class: { type: 'string', value: 'CLASS', description: 'only this class and its shapes (edit shows edit/typescript too)' },
      json: { type: 'boolean', description: 'print a JSON array' },
    },
  },
  decisions: {
    name: 'rung ledger decisions',
    summary: 'Prints recent decisions from decisions.jsonl beside the ledger, or every row of one call (its last row is the truth).',
    flags: {
      ...LEDGER_FLAG,
      last: { type: 'string', value: 'N', description: 'the newest N rows (default: 20)' },
      call: { type: 'string', value: 'ID', description: 'every row of the call ID instead' },
      source: {
        type: 'string',
        value: 'SOURCE',
        description: `only rows from SOURCE: ${LIVE_SOURCE} (a call made with rung chat or in the editor, which is what a row without a source is) or replay (rung replay)`,
      },
      team: {
        type: 'boolean',
        description: "the rows members shared with the team server --ledger postgres://… names (--share-decisions), with each row's member",
      },
      json: { type: 'boolean', description: 'print a JSON array' },
    },
  },
  export: {
    name: 'rung ledger export',
    summary: 'Writes the ratings, the decisions or both to stdout.',
    flags: {
      ...LEDGER_FLAG,
      format: { type: 'string', value: 'FORMAT', description: 'jsonl or csv (required)' },
      what: { type: 'string', value: 'WHAT', description: 'ratings, decisions or all (default: all)' },
    },
    required: ['format'],
  },
  reset: {
    name: 'rung ledger reset',
    summary: 'Forgets every rating, or one class and its shapes; the decision log stays.',
    flags: {
      ...LEDGER_FLAG,
      class: { type: 'string', value: 'CLASS', description: 'forget only this class and its shapes' },
      yes: { type: 'boolean', description: 'do it (without it, reset says what it would forget and exits 1)' },
    },
    required: ['yes'],
  },
  merge: {
    name: 'rung ledger merge',
    summary: "Folds a teammate's ledger into this one; merging the same one again adds nothing twice.",
    operands: 'OTHER',
    operandHelp: [
      [
        'OTHER',
        'the other ledger file, read and never written; or a team server (postgres://…) to pull its evidence into the file --ledger names',
      ],
    ],
    notes: [
      'With --ledger postgres://…, the file OTHER is imported into the team: only its own evidence, less what it holds from the team, so a file that pulled the team adds nothing.',
    ],
    flags: { ...LEDGER_FLAG },
  },
  compact: {
    name: 'rung ledger compact',
    summary: 'Drops old decision rows from decisions.jsonl; the ratings stay.',
    flags: {
      ...LEDGER_FLAG,
      'max-age-days': { type: 'string', value: 'D', description: 'drop rows older than D days' },
      'max-rows': { type: 'string', value: 'N', description: 'keep at most the newest N rows' },
    },
    notes: [`With neither flag: ${DEFAULT_RETENTION.maxAgeMs / DAY_MS} days and ${DEFAULT_RETENTION.maxRows} rows.`],
  },
} as const satisfies Record<string, CommandUsage>;

type LedgerSubcommand = keyof typeof LEDGER_COMMANDS;

/** `rung ledger --help`: every subcommand's usage line and what it does. */
export const LEDGER_USAGE = [
  'usage: rung ledger COMMAND [--ledger FILE|URL] ...   (rung ledger COMMAND --help describes every flag)',
  '',
  ...commandList(Object.entries(LEDGER_COMMANDS).map(([name, usage]): [string, string] => [name, usage.summary])),
  '',
  `--ledger defaults to ${DEFAULT_LEDGER_PATH} under the current folder; the decision log is decisions.jsonl beside it.`,
  '--ledger postgres://… names a team ledger; the decision log is still the one in this workspace.',
  '',
].join('\n');

const RUN: Record<LedgerSubcommand, (argv: string[], io: LedgerCommandIo) => Promise<number>> = {
  show,
  decisions,
  export: exportCommand,
  reset,
  merge,
  compact,
};

/** Runs one `rung ledger` subcommand; resolves to the process exit code. */
export async function runLedgerCommand(argv: string[], io: LedgerCommandIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) {
    io.stderr(LEDGER_USAGE);
    return EXIT_USAGE;
  }
  if (command === 'help' || command === '--help' || command === '-h') {
    io.stdout(LEDGER_USAGE);
    return EXIT_OK;
  }
  if (!Object.hasOwn(LEDGER_COMMANDS, command)) {
    io.stderr(`rung ledger: unknown command '${command}'\n\n${LEDGER_USAGE}`);
    return EXIT_USAGE;
  }
  const usage = LEDGER_COMMANDS[command as LedgerSubcommand];
  if (asksForHelp(rest, usage.flags)) {
    io.stdout(formatHelp(usage));
    return EXIT_OK;
  }
  try {
    return await RUN[command as LedgerSubcommand](rest, io);
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      io.stderr(
        `${usage.name}: ${printableLines((error as Error).message)}\n${usageLine(usage)}\n(${usage.name} --help describes every flag)\n`,
      );
      return EXIT_USAGE;
    }
    io.stderr(`${usage.name}: ${printableLines(explainWriteRefusal(error) ?? (error instanceof Error ? error.message : String(error)))}\n`);
    return EXIT_FAILED;
  }
}

/** Where `--ledger` says the ledger is: the workspace's own file without it. Read once per command. */
function storeAt(value: string | undefined, io: LedgerCommandIo): StoreLocation {
  return cliStoreLocation(value, io, 'workspace');
}

/**
 * The ledger file whose decision log a command reads: the one named, or with a team's URL the
 * workspace's own, since a team run writes them there (and sends them to the server only when asked to).
 */
function decisionsLedgerFile(location: StoreLocation): string {
  return workspaceFileOf(location) ?? DEFAULT_LEDGER_PATH;
}

/** Runs `work` on the team ledger at `location` and closes it, whatever happens; no fallback: the command acts on the team's ledger itself. */
async function withTeam<T>(
  location: StoreLocation & { kind: 'team' },
  io: LedgerCommandIo,
  readOnly: boolean,
  work: (team: TeamLedger) => Promise<T> | T,
): Promise<T> {
  const team = await openTeamLedger(location.url, io, { readOnly });
  try {
    return await work(team);
  } finally {
    await team.close();
  }
}

/**
 * Opens the ledger, printing what it had to say; a ledger that could not be read fails the command.
 *
 * @remarks
 * Read-only, a damaged file yields an empty ledger and an `unreadable` notice. Printing "no ratings yet"
 * and exiting 0 over it would tell a script the workspace has learned nothing, so the notice's message
 * becomes the command's error instead.
 */
async function openLedger(path: string, io: LedgerCommandIo, readOnly: boolean): Promise<WorkspaceLedger> {
  if (readOnly && !existsSync(path)) throw new Error(`no ledger at ${path} (pass --ledger FILE)`);
  if (!readOnly) refuseNonSqliteLedger(path);
  const ledger = await explainingRefusal(`cannot use the ledger ${path}`, '--ledger FILE', () => {
    // Made here rather than by the ledger's first save, so a folder that cannot be made is said as such.
    if (!readOnly) ensureFolder(dirname(path));
    return WorkspaceLedger.open({
      path,
      clock: io.clock,
      readOnly,
      onNotice: (notice) => {
        if (notice.kind !== 'unreadable') io.stderr(`rung ledger: ${printable(notice.message)}\n`);
      },
    });
  });
  const unreadable = ledger.notices.find((notice) => notice.kind === 'unreadable');
  if (unreadable) {
    await ledger.close();
    throw new Error(unreadable.message);
  }
  return ledger;
}

/** Reads the ratings; throws when there is no ledger or it could not be read. */
async function readEntries(path: string, io: LedgerCommandIo): Promise<RatingEntry[]> {
  return (await readRatingsAndTimes(path, io)).entries;
}

interface RatingsAndTimes {
  entries: RatingEntry[];
  timings: TimingEntry[];
}

async function readRatingsAndTimes(path: string, io: LedgerCommandIo): Promise<RatingsAndTimes> {
  const ledger = await openLedger(path, io, true);
  try {
    return { entries: ledger.entries(), timings: ledger.timings() };
  } finally {
    await ledger.close();
  }
}

/**
 * The ratings `--ledger` names: a team's (folded from every member's evidence on the server; nothing
 * written there), or a file's, with the times a call took. A team's server holds no times (speed is each
 * machine's own), so a team's come back empty.
 */
function readAnyEntries(location: StoreLocation, io: LedgerCommandIo): Promise<RatingsAndTimes> {
  switch (location.kind) {
    case 'team':
      return withTeam(location, io, true, (team) => ({ entries: team.entries(), timings: [] }));
    case 'file':
      return readRatingsAndTimes(location.path, io);
    case 'memory':
      return Promise.resolve({ entries: [], timings: [] });
  }
}

/**
 * Fails when something is at the ledger path that is not a readable ledger.
 *
 * @remarks
 * The decision log is found beside the ledger, so a `--ledger` naming a directory or a damaged file
 * would otherwise print "no decisions" from a log nobody meant; no ledger at all is fine, since the log
 * may outlive it.
 */
async function requireReadableIfPresent(path: string, io: LedgerCommandIo): Promise<void> {
  if (existsSync(path)) await readEntries(path, io);
}

async function show(argv: string[], io: LedgerCommandIo): Promise<number> {
  const { values } = parseCommandArgs(LEDGER_COMMANDS.show, argv);
  const classKey = values.class;
  const { entries, timings } = await readAnyEntries(storeAt(values.ledger, io), io);
  const times = new Map(timings.map((timing) => [ratingKey(timing.model, timing.classKey), timingFigures(timing)]));
  const rows = entries
    .filter((entry) => classKey === undefined || matchesClass(entry.classKey, classKey))
    .map((entry) => {
      // The wait the planner weighs: the mean whole call and first token on this machine, where timed.
      const time = times.get(ratingKey(entry.model, entry.classKey));
      return {
        model: entry.model,
        class: entry.classKey,
        rating: round(entry.rating, 3),
        ability: round(ability(entry.rating), 3),
        graded: entry.graded,
        ok: entry.ok,
        meanMs: time ? Math.round(time.meanMs) : null,
        firstTokenMs: time?.firstTokenMs === undefined ? null : Math.round(time.firstTokenMs),
        timedCalls: time?.attempts ?? 0,
      };
    });
  if (values.json) {
    io.stdout(`${printableJson(rows, 2)}\n`);
    return EXIT_OK;
  }
  if (rows.length === 0) {
    io.stdout(classKey === undefined ? 'no ratings yet\n' : `no ratings for class ${classKey}\n`);
    return EXIT_OK;
  }
  io.stdout(
    table(
      ['model', 'class', 'rating', 'ability', 'graded', 'ok', 'time a call'],
      rows.map((row) => [
        row.model,
        row.class,
        row.rating.toFixed(3),
        row.ability.toFixed(3),
        String(row.graded),
        String(row.ok),
        row.meanMs === null ? '—' : `${durationWords(row.meanMs)} (${row.timedCalls} timed)`,
      ]),
    ),
  );
  return EXIT_OK;
}

/** `rung ledger decisions --team`: the newest rows members shared with the team's server, read-only. */
async function teamDecisions(
  values: { ledger?: string; last?: string; call?: string; source?: string; json?: boolean },
  io: LedgerCommandIo,
): Promise<number> {
  const location = storeAt(values.ledger, io);
  if (location.kind !== 'team') throw new UsageError('--team reads the rows shared with a team server: it needs --ledger postgres://…');
  if (values.call !== undefined) throw new UsageError('--team lists the newest shared rows: drop --call');
  const count = positiveInteger(values.last ?? '20', '--last');
  const shared = await withTeam(location, io, true, (team) => team.sharedDecisions(count, values.source));
  if (values.json) {
    io.stdout(`${printableJson(shared, 2)}\n`);
    return EXIT_OK;
  }
  if (shared.length === 0) {
    io.stdout(`no shared decisions${values.source === undefined ? '' : ` from source ${values.source}`} on ${redactedUrl(location.url)}\n`);
    return EXIT_OK;
  }
  io.stdout(
    table(
      ['at', 'member', 'source', 'call', 'class', 'rung', 'model', 'verdict'],
      shared.map(({ member, row }) => [
        new Date(row.at).toISOString(),
        member,
        sourceCell(row),
        row.call,
        row.shape ? `${row.class}/${row.shape}` : row.class,
        String(row.rung),
        row.model,
        `${row.verdict}${row.final ? ' (final)' : ''}`,
      ]),
    ),
  );
  return EXIT_OK;
}

async function decisions(argv: string[], io: LedgerCommandIo): Promise<number> {
  const { values } = parseCommandArgs(LEDGER_COMMANDS.decisions, argv);
  if (values.last !== undefined && values.call !== undefined) throw new UsageError('pass --last or --call, not both');
  // Every row of one call comes from one writer, so a source would only hide the call or change nothing.
  if (values.source !== undefined && values.call !== undefined) throw new UsageError('pass --source or --call, not both');
  if (values.source === '') throw new UsageError(`--source needs a source: ${LIVE_SOURCE} or replay`);
  if (values.team) return teamDecisions(values, io);
  const path = decisionsLedgerFile(storeAt(values.ledger, io));
  await requireReadableIfPresent(path, io);
  const log = new DecisionLog({ path: decisionLogPath(path), clock: io.clock });
  let rows: DecisionRow[];
  // The sources of the rows read, so a filter that matched nothing can say what there is instead.
  const seen = new Set<string>();
  if (values.call !== undefined) {
    rows = log.forCall(values.call).rows;
    if (rows.length === 0) {
      io.stderr(`rung ledger decisions: no decisions for call ${values.call} in ${log.path}\n`);
      return EXIT_FAILED;
    }
  } else {
    const source = values.source;
    const keep =
      source === undefined
        ? undefined
        : (row: DecisionRow): boolean => {
            const from = decisionSource(row);
            seen.add(from);
            return from === source;
          };
    rows = log.last(positiveInteger(values.last ?? '20', '--last'), keep);
  }
  if (values.json) {
    io.stdout(`${printableJson(rows, 2)}\n`);
    return EXIT_OK;
  }
  if (rows.length === 0) {
    if (values.source === undefined || seen.size === 0) io.stdout(`no decisions in ${log.path}\n`);
    else io.stdout(`no decisions from source ${values.source} in ${log.path} (its rows are from: ${[...seen].sort().join(', ')})\n`);
    return EXIT_OK;
  }
  const last = rows.length - 1;
  io.stdout(
    table(
      ['at', 'source', 'call', 'class', 'rung', 'model', 'verdict', 'reason'],
      rows.map((row, index) => [
        new Date(row.at).toISOString(),
        sourceCell(row),
        row.call,
        row.shape ? `${row.class}/${row.shape}` : row.class,
        String(row.rung),
        row.model,
        `${row.verdict}${row.final ? ' (final)' : ''}${values.call !== undefined && index === last ? ' ← truth' : ''}`,
        row.reason,
      ]),
    ),
  );
  return EXIT_OK;
}

async function exportCommand(argv: string[], io: LedgerCommandIo): Promise<number> {
  const { values } = parseCommandArgs(LEDGER_COMMANDS.export, argv);
  const format = values.format;
  if (format !== 'jsonl' && format !== 'csv')
    throw new UsageError(format === undefined ? 'export needs --format jsonl|csv' : `unknown format '${format}' (jsonl or csv)`);
  const what = values.what ?? 'all';
  if (what !== 'ratings' && what !== 'decisions' && what !== 'all')
    throw new UsageError(`unknown --what '${what}' (ratings, decisions or all)`);
  const path = decisionsLedgerFile(storeAt(values.ledger, io));
  if (what === 'decisions') await requireReadableIfPresent(path, io);
  const { entries: ratings, timings } =
    what === 'decisions' ? { entries: [], timings: [] } : await readAnyEntries(storeAt(values.ledger, io), io);
  const { rows, skipped } =
    what === 'ratings' ? { rows: [], skipped: 0 } : new DecisionLog({ path: decisionLogPath(path), clock: io.clock }).readAll();
  // The export goes to stdout; what it left out is said on stderr, as rung evaluate says it.
  if (skipped)
    io.stderr(
      `rung ledger export: ${skipped} line${skipped === 1 ? '' : 's'} of the log ${skipped === 1 ? 'is not a decision row' : 'are not decision rows'}; skipped\n`,
    );
  io.stdout(exportLedger(format satisfies ExportFormat, what satisfies ExportWhat, ratings, rows, timings));
  return EXIT_OK;
}

async function reset(argv: string[], io: LedgerCommandIo): Promise<number> {
  const { values } = parseCommandArgs(LEDGER_COMMANDS.reset, argv);
  const scope = values.class === undefined ? 'every rating' : `the ratings of class ${values.class}`;
  if (!values.yes) {
    io.stderr(`rung ledger reset: would forget ${scope}; pass --yes to do it\n`);
    return EXIT_FAILED;
  }
  const location = storeAt(values.ledger, io);
  if (location.kind === 'team') {
    const removed = await withTeam(location, io, false, (team) => team.reset(values.class));
    io.stdout(`forgot ${removed} rating${removed === 1 ? '' : 's'} (${scope}) for the whole team at ${redactedUrl(location.url)}\n`);
    return EXIT_OK;
  }
  const path = decisionsLedgerFile(location);
  if (!existsSync(path)) throw new Error(`no ledger at ${path} (pass --ledger FILE)`);
  const ledger = await openLedger(path, io, false);
  try {
    const removed = await ledger.reset(values.class);
    io.stdout(`forgot ${removed} rating${removed === 1 ? '' : 's'} (${scope})\n`);
  } finally {
    await ledger.close();
  }
  return EXIT_OK;
}

async function merge(argv: string[], io: LedgerCommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(LEDGER_COMMANDS.merge, argv);
  if (positionals.length !== 1) throw new UsageError('merge needs exactly one OTHER (a ledger file or a team server URL)');
  const operand = positionals[0] as string;
  const into = storeAt(values.ledger, io);
  const from = cliStoreLocation(operand, io, 'workspace');
  if (from.kind === 'team' && into.kind === 'team')
    throw new UsageError('merge needs a ledger file on one side: two team servers cannot be merged');
  if (from.kind === 'team') return pullTeam(from, decisionsLedgerFile(into), io);
  const other = decisionsLedgerFile(from);
  // Check the other file by the very rule the merge applies before opening (and perhaps creating) ours,
  // so a merge that cannot happen leaves nothing behind.
  const source = readMergeSource(other, await loadSqlJs(), io.clock.now());
  const skipped = describeSkippedRows(source.skipped);
  if (skipped !== undefined) io.stderr(`rung ledger: ${printable(leftOutOf(other, skipped))}\n`);
  if (into.kind === 'team') {
    const url = into.url;
    const report = await withTeam(into, io, false, (team) => team.importLedger(source));
    // Named here by the user: a team store that opens in its folder later sends it without asking again.
    const userFolder = userDataFolder(io.env ?? {});
    try {
      if (userFolder) new LedgerProvenance(userFolder).record(other, source.ledgerId, 'send');
    } catch {
      // Only the record is missing: a team store in that folder asks again before sending it.
    }
    io.stdout(
      report.addedGraded === 0
        ? `nothing new from ${other} (ledger ${printable(source.ledgerId)}): the team at ${redactedUrl(url)} already holds its evidence\n`
        : `imported ${plural(report.addedGraded, 'graded observation')} over ${report.sourceRatings} ratings from ${other} (ledger ${printable(source.ledgerId)}) into the team at ${redactedUrl(url)}\n`,
    );
    return EXIT_OK;
  }
  const ledger = await openLedger(decisionsLedgerFile(into), io, false);
  try {
    // Its rows left out were said above, from the same reading of the file.
    reportMerge(await ledger.merge(other), other, io);
  } finally {
    await ledger.close();
  }
  return EXIT_OK;
}

/**
 * Folds a team's evidence into a ledger file, less what that file itself gave the team by import.
 *
 * @remarks
 * Recorded under the team's id, so pulling again adds only what is new, and importing the file into
 * the team afterwards adds nothing of what it pulled.
 */
async function pullTeam(team: StoreLocation & { kind: 'team' }, path: string, io: LedgerCommandIo): Promise<number> {
  const url = team.url;
  const ledger = await openLedger(path, io, false);
  try {
    const source = await withTeam(team, io, true, (team) => ({
      sourceId: team.sourceId,
      entries: team.entriesExcept(ledger.id),
      aliases: team.aliases(),
    }));
    reportMerge(await ledger.mergeFrom(source), redactedUrl(url), io);
  } finally {
    await ledger.close();
  }
  return EXIT_OK;
}

function reportMerge(report: MergeReport, from: string, io: LedgerCommandIo): void {
  io.stdout(
    report.addedGraded === 0
      ? `nothing new from ${from} (ledger ${printable(report.sourceId)}): already merged\n`
      : `merged ${plural(report.addedGraded, 'graded observation')} over ${report.sourceRatings} ratings from ${from} (ledger ${printable(report.sourceId)})\n`,
  );
}

/** What a merge left out of the file it read, in words. */
function leftOutOf(path: string, skipped: string): string {
  return `left out ${skipped} of ${path} that Rung cannot use (${SKIPPED_ROWS_REASON}); the rest is merged`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** Applies the decision log's retention now; the ledger's ratings are not touched. */
async function compact(argv: string[], io: LedgerCommandIo): Promise<number> {
  const { values } = parseCommandArgs(LEDGER_COMMANDS.compact, argv);
  // The limits named on the command line are the ones applied; with none, the defaults.
  const named = values['max-age-days'] !== undefined || values['max-rows'] !== undefined;
  const retention = named
    ? {
        maxAgeMs: values['max-age-days'] === undefined ? undefined : positiveInteger(values['max-age-days'], '--max-age-days') * DAY_MS,
        maxRows: values['max-rows'] === undefined ? undefined : positiveInteger(values['max-rows'], '--max-rows'),
      }
    : DEFAULT_RETENTION;
  const path = decisionsLedgerFile(storeAt(values.ledger, io));
  // With neither there is nothing to compact, and the likeliest cause is a --ledger or a folder named
  // wrong: said as the other subcommands say it, where the lock taken next failed with a raw ENOENT in
  // a folder that does not exist. The log alone is enough, since it may outlive its ledger.
  if (!existsSync(path) && !existsSync(decisionLogPath(path))) throw new Error(`no ledger at ${path} (pass --ledger FILE)`);
  // Compaction takes the log's lock: a lock taken over from a dead process is said on stderr.
  const { log } = decisionLogBeside(path, io, 'rung ledger compact');
  const { kept, dropped, setAside, setAsidePath } = await log.compact(retention);
  io.stdout(`kept ${kept} decision row${kept === 1 ? '' : 's'}, dropped ${dropped} from ${log.path}\n`);
  if (setAside)
    io.stdout(
      `moved ${setAside} line${setAside === 1 ? '' : 's'} that ${setAside === 1 ? 'was not a decision row' : 'were not decision rows'} to ${setAsidePath}\n`,
    );
  return EXIT_OK;
}

/**
 * A row's source as the tables print it: `live`, `replay`, or a replay of another policy with that
 * policy (`replay open=qwen3:14b`), since a replay of a policy is not how Rung itself would have routed.
 */
function sourceCell(row: DecisionRow): string {
  const source = decisionSource(row);
  return row.policy === undefined ? source : `${source} ${row.policy}`;
}

function positiveInteger(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`${flag} needs a whole number of at least 1, not '${text}'`);
  return value;
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/**
 * Left-aligned columns two spaces apart, header first; every cell through {@link printable}, since a
 * cell may hold a teammate's text (a member name, a shared row's model or reason) that a terminal would
 * otherwise obey.
 */
function table(header: string[], rows: string[][]): string {
  rows = rows.map((row) => row.map(printable));
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].map((text) => `${text}\n`).join('');
}
