/**
 * `node scripts/misfit.mjs [OUTCOMES.jsonl] [--split S] [--world NAME --seed N]`: how far the recorded
 * outcomes (the `train` split unless told) stray from the router's one-difficulty model, per family.
 *
 * @remarks
 * Prints, per family, the fitted spread and unanswerable share, then for each model in price order the
 * calls every cheaper model failed and the share it passed, observed against the fit's prediction, and
 * the mean excess of joint failures over the fit. The parameters of the correlated world in
 * `worlds.ts` were read off this output for `train`; `--world` prints the same for a generated world.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseOutcomes, type OutcomeRow } from '../core/replay/outcomes';
import { lineageOf, misfit, priceOrder } from './misfit';
import { DIFFICULTY_SD_LOGITS, UNANSWERABLE_SHARE } from '../core/ratings';
import { generateWorld, worldNamed } from './worlds';

const DEFAULT_OUTCOMES = resolve(__dirname, '../../shared/data/cascades-9-models.jsonl');

function main(): void {
  const args = process.argv.slice(2);
  const option = (name: string) => args.find((_, index) => args[index - 1] === name);
  const worldName = option('--world');
  let rows: OutcomeRow[];
  let models: string[];
  let source: string;
  let groupOf: (model: string) => string = lineageOf;
  if (worldName) {
    const seed = Number(option('--seed') ?? '1');
    const world = worldNamed(worldName);
    rows = generateWorld(world, seed);
    // A world's groups are the ones it draws shared failures for; a model in none is its own.
    groupOf = (model) => world.models.find((entry) => entry.slug === model)?.group ?? model;
    models = Object.keys((rows[0] as OutcomeRow).m);
    source = `world ${worldName}, seed ${seed}`;
  } else {
    const path = args.find((arg, index) => !arg.startsWith('--') && !['--split', '--world', '--seed'].includes(args[index - 1] ?? '')) ?? DEFAULT_OUTCOMES;
    const split = option('--split') ?? 'train';
    const parsed = parseOutcomes(readFileSync(path, 'utf8'), path);
    rows = parsed.rows.filter((row) => row['split_src'] === split);
    models = parsed.models;
    source = `${path}, split ${split}`;
  }
  const order = priceOrder(rows, models);
  const out: string[] = [`Misfit of the one-difficulty model: ${source}; models in price order (mean cost per call).`, ''];
  const families = [...new Set(rows.map((row) => row.family))].sort();
  const summary: string[] = [
    '| family | prompts | fitted sd, logits | fitted unanswerable | nobody answers, observed / predicted | joint-failure excess, all pairs / same group / across groups, points | climb shortfall past the cheapest, fitted prior / router\'s prior, points |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  const routerPrior = { sdLogits: DIFFICULTY_SD_LOGITS, unanswerable: UNANSWERABLE_SHARE };
  for (const family of families) {
    const members = rows.filter((row) => row.family === family);
    const result = misfit(members, order, { groupOf });
    // The planner's own prior (spread and unanswerable share held at the router's constants, abilities fitted).
    const planner = misfit(members, order, { groupOf, fixed: routerPrior });
    summary.push(
      `| ${family} | ${members.length} | ${result.fit.sdLogits.toFixed(2)} | ${pct(result.fit.unanswerable)} | ${pct(result.nobodyAnswers.observed)} / ${pct(result.nobodyAnswers.predicted)} | ` +
        `${points(result.jointFailureExcess)} / ${points(result.withinGroupExcess)} / ${points(result.acrossGroupExcess)} | ${points(result.climbShortfall)} / ${points(planner.climbShortfall)} |`,
    );
    out.push(
      `### ${family} (${members.length} prompts)`,
      '',
      '| model | group | accuracy | ability, logits | calls every cheaper model failed | passed, observed | passed, predicted (fitted prior) | passed, predicted (router\'s prior) |',
      '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    );
    result.climb.forEach((row, index) => {
      const accuracy = members.filter((member) => member.m[row.model]?.c === 1).length / members.length;
      const routerRow = planner.climb[index];
      out.push(
        `| ${row.model} | ${groupOf(row.model)} | ${accuracy.toFixed(3)} | ${(result.fit.abilities[row.model] as number).toFixed(2)} | ${row.reached} | ${row.reached ? row.observed.toFixed(3) : '—'} | ${row.predicted.toFixed(3)} | ${routerRow?.predicted.toFixed(3) ?? '—'} |`,
      );
    });
    const worst = [...result.pairs].sort((a, b) => b.observed - b.predicted - (a.observed - a.predicted)).slice(0, 3);
    out.push('', `Joint failures, largest excesses: ${worst.map((pair) => `${pair.a} & ${pair.b} ${pct(pair.observed)} vs ${pct(pair.predicted)}`).join('; ')}.`, '');
  }
  process.stdout.write([...summary, '', ...out].join('\n') + '\n');
}

function pct(x: number): string {
  return `${(100 * x).toFixed(1)}%`;
}

function points(x: number): string {
  return Number.isNaN(x) ? '—' : `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;
}

main();
