/**
 * The quality plots of BENCHMARKS.md: accuracy against cost for Rung, the simple learner, the
 * class-level bound and the oracle, drawn from the figures `quality.mjs --plot` keeps.
 *
 * @remarks
 * Kept apart from quality.ts, which runs its replays as soon as it is loaded, so that the plots can be redrawn
 * from bench/plots/quality-plots.json (when the writer changes) without running the replays again.
 */
import { svgPlot, type PlotSeries } from './svgPlot';

/** One quality plot's figures as `--plot` writes them to quality-plots.json: each series' points as (cost share, accuracy). */
export interface QualityFigures {
  title: string;
  series: { name: string; points: { costShare: number; accuracy: number }[] }[];
}

export const BOUND_SERIES = 'class-level bound (hindsight chains)';

/** How each series of a quality plot is drawn, by its name: the bound a dashed grey line, every policy a point of its own colour and marker. */
const QUALITY_STYLE: Record<string, Pick<PlotSeries, 'color' | 'marker' | 'dashed' | 'line'>> = {
  [BOUND_SERIES]: { color: '#999999', marker: 'none', dashed: true, line: true },
  oracle: { color: '#009E73', marker: 'diamond', line: false },
  'simple learner': { color: '#E69F00', marker: 'square', line: false },
  Rung: { color: '#0072B2', marker: 'circle', line: false },
  'Rung, reading the prompt text': { color: '#CC79A7', marker: 'triangle', line: false },
};

/**
 * One quality plot, accuracy against cost as a percentage of the best single model, from its figures.
 *
 * @remarks
 * Drawn from the figures alone, the same ones quality-plots.json keeps, so a plot can be redrawn from
 * that file without running the replays again.
 */
export function qualityPlotSvg(figures: QualityFigures): string {
  const series: PlotSeries[] = figures.series.map((entry) => ({
    label: entry.name,
    points: entry.points.map((p) => ({ x: 100 * p.costShare, y: p.accuracy })),
    ...(QUALITY_STYLE[entry.name] ?? { line: false }),
  }));
  return svgPlot({ title: figures.title, xLabel: 'cost, % of the best single model', yLabel: 'accuracy', series, xFormat: (x) => `${x.toFixed(0)}%`, yFormat: (y) => y.toFixed(3) });
}
