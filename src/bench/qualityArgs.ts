/**
 * What `node scripts/quality.mjs` was asked to measure: the recorded outcomes (a file), the generated
 * worlds, or both, read from its arguments and `RUNG_OUTCOMES`.
 *
 * @remarks
 * The recorded outcomes are not in this repository (their source declares no licence), so a fresh clone
 * has none at the default place, a folder beside the clone. With no argument the script used to read
 * that file anyway and died with Node's raw `ENOENT` and a stack trace; a user who only cloned could not
 * run it at all. Without a file named, and none at the default place, it now says what it needs and
 * measures the worlds, which need nothing; a file the user named and that is not there is their mistake,
 * said as such.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Tradeoff } from '../core/panel';
import type { ReplayVerifier } from '../core/replay/replay';

export const QUALITY_USAGE =
  'usage: node scripts/quality.mjs [OUTCOMES.jsonl] [--economy] [--noisy] [--worlds | --recorded] [--world NAME]… [--spend] [--seeds N] [--plot DIR] [--wait-worth USD] [--json] [--bound-at ACCURACY]';

/** A command line the script cannot run: said with its usage, exit 2. */
export class QualityUsageError extends Error {
  override name = 'QualityUsageError';
}

export interface QualityPlan {
  tradeoff: Tradeoff;
  verifier: ReplayVerifier;
  /** The recorded outcomes to measure; undefined to measure the generated worlds only. */
  recorded: string | undefined;
  /** Whether to measure the generated worlds. */
  worlds: boolean;
  /** `--world NAME`s: only those worlds (and no recorded half). */
  named: string[];
  spend: boolean;
  /** Seeds 1–N (`--seeds N`, 5 by default). */
  seeds: number[];
  /** `--plot DIR`: where to write the accuracy-against-cost plots, if anywhere. */
  plotDir: string | undefined;
  /** `--wait-worth USD`: what a minute of waiting is worth to the router; the panel's default when absent. */
  waitWorth?: number;
  /** `--json`: print each line's figures as one JSON object instead of the tables (for `npm run bench:report`). */
  json: boolean;
  /**
   * `--bound-at ACCURACY`: replay nothing; for each world and seed, say what the cheapest fixed chains per
   * class chosen in hindsight spend to reach that accuracy, the bound on any policy that climbs a fixed
   * chain per class.
   */
  boundAt?: number;
  /** What to tell the user before measuring (the recorded half left out, and why). */
  notes: string[];
}

/**
 * Reads the script's arguments.
 *
 * @param defaultOutcomes Where the recorded outcomes are when neither an argument nor `RUNG_OUTCOMES` says.
 * @throws QualityUsageError for a named file that is not there, or `--recorded` with no recorded outcomes.
 */
export function readQualityArgs(args: readonly string[], env: Record<string, string | undefined>, defaultOutcomes: string, cwd = process.cwd()): QualityPlan {
  const tradeoff: Tradeoff = args.includes('--economy') ? 'economy' : 'quality';
  // --noisy: the check passes a wrong answer 5% of the time and fails a right one 5% of the time.
  const verifier: ReplayVerifier = args.includes('--noisy') ? { kind: 'noisy', falsePass: 0.05, falseFail: 0.05 } : { kind: 'perfect' };
  // --world NAME (repeatable) measures only those worlds.
  const named = args.flatMap((arg, index) => (args[index - 1] === '--world' ? [arg] : []));
  // --worlds or --recorded runs one half, for iterating; the figures in BENCHMARKS.md are from both.
  const only = args.includes('--worlds') ? 'worlds' : args.includes('--recorded') ? 'recorded' : undefined;
  const spend = args.includes('--spend');
  const valueOf = (flag: string) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
  const seedText = valueOf('--seeds');
  const seedCount = seedText === undefined ? 5 : Number(seedText);
  if (!Number.isInteger(seedCount) || seedCount < 1) throw new QualityUsageError(`--seeds takes a whole number of seeds, 1 or more (got ${seedText ?? 'nothing'})`);
  const seeds = Array.from({ length: seedCount }, (_, i) => i + 1);
  const plotDir = valueOf('--plot');
  if (args.includes('--plot') && (plotDir === undefined || plotDir.startsWith('--'))) throw new QualityUsageError('--plot takes the folder to write the plots to');
  const waitText = valueOf('--wait-worth');
  const waitWorth = waitText === undefined ? undefined : Number(waitText);
  if (args.includes('--wait-worth') && (waitWorth === undefined || !Number.isFinite(waitWorth) || waitWorth < 0))
    throw new QualityUsageError(`--wait-worth takes USD a minute, 0 or more (got ${waitText ?? 'nothing'})`);
  const boundText = valueOf('--bound-at');
  const boundAt = boundText === undefined ? undefined : Number(boundText);
  if (args.includes('--bound-at') && (boundAt === undefined || !Number.isFinite(boundAt) || boundAt <= 0 || boundAt > 1))
    throw new QualityUsageError(`--bound-at takes an accuracy between 0 and 1 (got ${boundText ?? 'nothing'})`);
  const worlds = only !== 'recorded';
  const notes: string[] = [];
  let recorded: string | undefined;
  if (only !== 'worlds' && named.length === 0) {
    const given = args.find((arg, index) => !arg.startsWith('--') && !['--world', '--seeds', '--plot', '--wait-worth', '--bound-at'].includes(args[index - 1] ?? ''));
    const chosen = given ?? env.RUNG_OUTCOMES;
    if (chosen !== undefined) {
      recorded = resolve(cwd, chosen);
      if (!existsSync(recorded)) throw new QualityUsageError(`no recorded outcomes at ${recorded} (named by ${given !== undefined ? 'the argument' : 'RUNG_OUTCOMES'}): name the JSON lines file of recorded outcomes, or leave it out to measure the generated worlds only`);
    } else if (existsSync(defaultOutcomes)) {
      recorded = defaultOutcomes;
    } else if (only === 'recorded') {
      throw new QualityUsageError(`--recorded measures the recorded outcomes, and there are none at ${defaultOutcomes}: name their file (node scripts/quality.mjs OUTCOMES.jsonl --recorded) or set RUNG_OUTCOMES`);
    } else {
      notes.push(
        `no recorded outcomes at ${defaultOutcomes} (they are not part of this repository: name their file, node scripts/quality.mjs OUTCOMES.jsonl, or set RUNG_OUTCOMES, to measure them too); measuring the generated worlds only`,
      );
    }
  }
  return {
    tradeoff,
    verifier,
    recorded,
    worlds,
    named,
    spend,
    seeds,
    plotDir,
    json: args.includes('--json'),
    notes,
    ...(waitWorth !== undefined ? { waitWorth } : {}),
    ...(boundAt !== undefined ? { boundAt } : {}),
  };
}
