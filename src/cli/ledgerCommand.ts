/**
 * `rung ledger …`: look into the workspace ledger, export it, reset it, or fold a teammate's into it.
 *
 * @remarks
 * Every subcommand takes `--ledger FILE` (default `.rung/ledger.sqlite` under the working directory)
 * and the decision log is the `decisions.jsonl` beside it. Reading commands open the ledger read-only,
 * so inspecting a workspace never migrates, repairs or otherwise writes it. Exit codes: 0 done, 1 the
 * command failed (a missing ledger, a refused reset), 2 the arguments were wrong.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Clock } from '../core/clock';
import { ability } from '../core/ratings';
import { DecisionLog, decisionLogPath, DEFAULT_RETENTION } from '../core/ledger/decisionLog';
import { exportLedger, type ExportFormat, type ExportWhat } from '../core/ledger/ledgerExport';
import type { RatingEntry } from '../core/ledger/ledger';
import { matchesClass } from '../core/ledger/ledgerState';
import { loadSqlJs } from '../core/ledger/sqlJs';
import { DEFAULT_LEDGER_PATH, readMergeSource, WorkspaceLedger } from '../core/ledger/workspaceLedger';
import type { DecisionRow } from '../core/decisions/decision';
import { isParseArgsError, UsageError } from './io';

export interface LedgerCommandIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  cwd: string;
  clock: Clock;
}

const USAGE = `usage: rung ledger <command> [--ledger FILE]
  show [--class C] [--json]            ratings: model, class, rating, ability, graded, ok
  decisions [--last N] [--call ID] [--json]
                                       recent decisions, or every row of one call (its last row is the truth)
  export --format jsonl|csv [--what ratings|decisions|all]
  reset [--class C] --yes              forget every rating, or one class and its shapes
  merge OTHER.sqlite                   fold a teammate's ledger in; merging it again adds nothing twice
  compact [--max-age-days D] [--max-rows N]
                                       drop old decision rows (with neither: 90 days and 100000 rows); ratings stay
--ledger defaults to ${DEFAULT_LEDGER_PATH} under the current directory.
`;


/** Runs one `rung ledger` subcommand; resolves to the process exit code. */
export async function runLedgerCommand(argv: string[], io: LedgerCommandIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'show':
        return await show(rest, io);
      case 'decisions':
        return await decisions(rest, io);
      case 'export':
        return await exportCommand(rest, io);
      case 'reset':
        return await reset(rest, io);
      case 'merge':
        return await merge(rest, io);
      case 'compact':
        return await compact(rest, io);
      case undefined:
      case 'help':
      case '--help':
        io.stdout(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown ledger command '${command}'`);
    }
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      io.stderr(`rung ledger: ${(error as Error).message}\n${USAGE}`);
      return 2;
    }
    io.stderr(`rung ledger: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}


const LEDGER_OPTION = { ledger: { type: 'string' } } as const;

function ledgerFile(value: string | undefined, io: LedgerCommandIo): string {
  const path = value ?? DEFAULT_LEDGER_PATH;
  return isAbsolute(path) ? path : join(io.cwd, path);
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
  const ledger = await WorkspaceLedger.open({
    path,
    clock: io.clock,
    readOnly,
    onNotice: (notice) => {
      if (notice.kind !== 'unreadable') io.stderr(`rung ledger: ${notice.message}\n`);
    },
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
  const ledger = await openLedger(path, io, true);
  try {
    return ledger.entries();
  } finally {
    await ledger.close();
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
  const { values } = parseArgs({ args: argv, options: { ...LEDGER_OPTION, class: { type: 'string' }, json: { type: 'boolean' } }, strict: true, allowPositionals: false });
  const classKey = values.class;
  const rows = (await readEntries(ledgerFile(values.ledger, io), io))
    .filter((entry) => classKey === undefined || matchesClass(entry.classKey, classKey))
    .map((entry) => ({ model: entry.model, class: entry.classKey, rating: round(entry.rating, 3), ability: round(ability(entry.rating), 3), graded: entry.graded, ok: entry.ok }));
  if (values.json) {
    io.stdout(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  if (rows.length === 0) {
    io.stdout(classKey === undefined ? 'no ratings yet\n' : `no ratings for class ${classKey}\n`);
    return 0;
  }
  io.stdout(table(['model', 'class', 'rating', 'ability', 'graded', 'ok'], rows.map((row) => [row.model, row.class, row.rating.toFixed(3), row.ability.toFixed(3), String(row.graded), String(row.ok)])));
  return 0;
}

async function decisions(argv: string[], io: LedgerCommandIo): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { ...LEDGER_OPTION, last: { type: 'string' }, call: { type: 'string' }, json: { type: 'boolean' } }, strict: true, allowPositionals: false });
  if (values.last !== undefined && values.call !== undefined) throw new UsageError('pass --last or --call, not both');
  const path = ledgerFile(values.ledger, io);
  await requireReadableIfPresent(path, io);
  const log = new DecisionLog({ path: decisionLogPath(path), clock: io.clock });
  let rows: DecisionRow[];
  if (values.call !== undefined) {
    rows = log.forCall(values.call).rows;
    if (rows.length === 0) {
      io.stderr(`rung ledger: no decisions for call ${values.call} in ${log.path}\n`);
      return 1;
    }
  } else {
    rows = log.last(positiveInteger(values.last ?? '20', '--last'));
  }
  if (values.json) {
    io.stdout(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  if (rows.length === 0) {
    io.stdout(`no decisions in ${log.path}\n`);
    return 0;
  }
  const last = rows.length - 1;
  io.stdout(
    table(
      ['at', 'call', 'class', 'rung', 'model', 'verdict', 'reason'],
      rows.map((row, index) => [
        new Date(row.at).toISOString(),
        row.call,
        row.shape ? `${row.class}/${row.shape}` : row.class,
        String(row.rung),
        row.model,
        `${row.verdict}${row.final ? ' (final)' : ''}${values.call !== undefined && index === last ? ' ← truth' : ''}`,
        row.reason,
      ]),
    ),
  );
  return 0;
}

async function exportCommand(argv: string[], io: LedgerCommandIo): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { ...LEDGER_OPTION, format: { type: 'string' }, what: { type: 'string' } }, strict: true, allowPositionals: false });
  const format = values.format;
  if (format !== 'jsonl' && format !== 'csv') throw new UsageError(format === undefined ? 'export needs --format jsonl|csv' : `unknown format '${format}' (jsonl or csv)`);
  const what = values.what ?? 'all';
  if (what !== 'ratings' && what !== 'decisions' && what !== 'all') throw new UsageError(`unknown --what '${what}' (ratings, decisions or all)`);
  const path = ledgerFile(values.ledger, io);
  if (what === 'decisions') await requireReadableIfPresent(path, io);
  const ratings = what === 'decisions' ? [] : await readEntries(path, io);
  const rows = what === 'ratings' ? [] : new DecisionLog({ path: decisionLogPath(path), clock: io.clock }).readAll().rows;
  io.stdout(exportLedger(format satisfies ExportFormat, what satisfies ExportWhat, ratings, rows));
  return 0;
}

async function reset(argv: string[], io: LedgerCommandIo): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { ...LEDGER_OPTION, class: { type: 'string' }, yes: { type: 'boolean' } }, strict: true, allowPositionals: false });
  const scope = values.class === undefined ? 'every rating' : `the ratings of class ${values.class}`;
  if (!values.yes) {
    io.stderr(`rung ledger: reset would forget ${scope}; pass --yes to do it\n`);
    return 1;
  }
  const path = ledgerFile(values.ledger, io);
  if (!existsSync(path)) throw new Error(`no ledger at ${path} (pass --ledger FILE)`);
  const ledger = await openLedger(path, io, false);
  try {
    const removed = await ledger.reset(values.class);
    io.stdout(`forgot ${removed} rating${removed === 1 ? '' : 's'} (${scope})\n`);
  } finally {
    await ledger.close();
  }
  return 0;
}

async function merge(argv: string[], io: LedgerCommandIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: LEDGER_OPTION, strict: true, allowPositionals: true });
  if (positionals.length !== 1) throw new UsageError('merge needs exactly one OTHER.sqlite');
  const other = isAbsolute(positionals[0] as string) ? (positionals[0] as string) : join(io.cwd, positionals[0] as string);
  // Check the other file by the very rule the merge applies before opening (and perhaps creating) ours,
  // so a merge that cannot happen leaves nothing behind.
  readMergeSource(other, await loadSqlJs(), io.clock.now());
  const ledger = await openLedger(ledgerFile(values.ledger, io), io, false);
  try {
    const report = await ledger.merge(other);
    io.stdout(
      report.addedGraded === 0
        ? `nothing new from ${other} (ledger ${report.sourceId}): already merged\n`
        : `merged ${report.addedGraded} graded observation${report.addedGraded === 1 ? '' : 's'} over ${report.sourceRatings} ratings from ${other} (ledger ${report.sourceId})\n`,
    );
  } finally {
    await ledger.close();
  }
  return 0;
}

/** Applies the decision log's retention now; the ledger's ratings are not touched. */
async function compact(argv: string[], io: LedgerCommandIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { ...LEDGER_OPTION, 'max-age-days': { type: 'string' }, 'max-rows': { type: 'string' } },
    strict: true,
    allowPositionals: false,
  });
  // The limits named on the command line are the ones applied; with none, the defaults.
  const named = values['max-age-days'] !== undefined || values['max-rows'] !== undefined;
  const retention = named
    ? {
        maxAgeMs: values['max-age-days'] === undefined ? undefined : positiveInteger(values['max-age-days'], '--max-age-days') * DAY_MS,
        maxRows: values['max-rows'] === undefined ? undefined : positiveInteger(values['max-rows'], '--max-rows'),
      }
    : DEFAULT_RETENTION;
  const log = new DecisionLog({ path: decisionLogPath(ledgerFile(values.ledger, io)), clock: io.clock });
  const { kept, dropped } = await log.compact(retention);
  io.stdout(`kept ${kept} decision row${kept === 1 ? '' : 's'}, dropped ${dropped} from ${log.path}\n`);
  return 0;
}

const DAY_MS = 24 * 60 * 60 * 1000;

function positiveInteger(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`${flag} needs a whole number of at least 1, not '${text}'`);
  return value;
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** Left-aligned columns two spaces apart, header first. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]): string => cells.map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].map((text) => `${text}\n`).join('');
}
