/**
 * `node scripts/confidence-tuning.mjs OUTCOMES.jsonl [--split train] [--seeds A-B] [--explore K] [--multiples M,…]`: the
 * learned confidence check's curve on one split, for choosing its tunables there.
 *
 * @remarks
 * Rung with the learned check at each multiple of confidence.mjs's grid, mean over the seeds given, and
 * the accuracy at 40% and at 55% of the best single model's cost read off that curve as confidence.mjs
 * reads it. `--explore K` runs it with a cheaper rung opened until the class has K grades of it
 * (`EXPLORE_OPENINGS` otherwise); `--multiples` replaces the grid (a finer one near a cost share, or a hindsight
 * bound over the family on `test`, BENCHMARKS.md). Nothing is tuned on `test`: tuning happens on `train`.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfidenceLearner } from '../core/confidence/confidenceLearner';
import { parseOutcomes, selectOutcomes } from '../core/replay/outcomes';
import { runReplay } from '../core/replay/replay';
import { accuracyAt, type CurvePoint } from './curveReading';

const MULTIPLES = [5, 7, 10, 14, 20, 28, 40];

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const path = resolve(args.find((arg) => !arg.startsWith('--') && !isFlagValue(args, arg)) ?? '../shared/data/cascades-9-models.jsonl');
  const split = flag(args, '--split') ?? 'train';
  const [first, last] = (flag(args, '--seeds') ?? '1-10').split('-').map(Number) as [number, number];
  const explore = flag(args, '--explore');
  const multiples = (flag(args, '--multiples') ?? MULTIPLES.join(',')).split(',').map(Number);
  if (!multiples.every((multiple) => multiple > 0)) throw new Error('--multiples takes positive numbers, comma-separated');
  if (!(first >= 1 && last >= first)) throw new Error('--seeds takes A-B, 1 ≤ A ≤ B');
  if (explore !== undefined && !(Number(explore) >= 0)) throw new Error('--explore takes a count of grades, 0 or more');
  const { rows, models } = parseOutcomes(readFileSync(path, 'utf8'), path);
  const chosen = selectOutcomes(rows, { split: split as 'train' }, path);
  const seeds = last - first + 1;
  const points: CurvePoint[] = [];
  for (const multiple of multiples) {
    let accuracy = 0;
    let share = 0;
    for (let seed = first; seed <= last; seed++) {
      const confidenceLearner = new ConfidenceLearner(explore === undefined ? {} : { exploreOpenings: Number(explore) });
      const summary = await runReplay({ rows: chosen, models, verifier: { kind: 'learned-confidence', multiple }, classKey: 'family', seed, confidenceLearner });
      accuracy += summary.policy.accuracy / seeds;
      share += summary.policy.cost / summary.bestSingle.cost / seeds;
    }
    points.push({ share, accuracy, label: `×${multiple}` });
    console.log(`×${multiple}: ${accuracy.toFixed(4)} at ${(100 * share).toFixed(1)}%`);
  }
  const at = (share: number): string => accuracyAt(points, share)?.toFixed(4) ?? '—';
  console.log(`${split}, seeds ${first}–${last}${explore === undefined ? '' : `, explore ${explore}`}: ${at(0.4)} at 40%, ${at(0.55)} at 55%`);
}

function flag(args: readonly string[], name: string): string | undefined {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
}

function isFlagValue(args: readonly string[], arg: string): boolean {
  const index = args.indexOf(arg);
  return index > 0 && (args[index - 1] as string).startsWith('--');
}

void main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
