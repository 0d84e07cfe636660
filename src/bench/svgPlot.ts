/**
 * A small SVG plot writer: axes with ticks and grid, labelled series of points and lines, a legend.
 *
 * @remarks
 * Benchmarks print numbers; a reader compares curves faster than tables, so the figures of
 * BENCHMARKS.md that are curves are also drawn. Written here, with no dependency, because what is
 * needed is small and must run in Node without a browser or a canvas: the libraries that do that
 * either pull in a DOM emulation or draw to a canvas binding. The output is deterministic (coordinates
 * rounded, no ids, no clock), so regenerating a plot from the same figures gives the same bytes and a
 * diff shows only what moved. Colours are fixed hex values rather than theme variables: the file is
 * viewed on GitHub and in editors alike, on a white background it draws itself.
 */

/** One point; `label` is written beside it. */
export interface PlotPoint {
  x: number;
  y: number;
  label?: string;
}

export type PlotMarker = 'circle' | 'square' | 'diamond' | 'triangle' | 'cross' | 'none';

/** One series: its legend label, its points, and how it is drawn. */
export interface PlotSeries {
  label: string;
  points: readonly PlotPoint[];
  /** Join the points with a line, in the order given (default true when there are two or more). */
  line?: boolean;
  /** Dashed line: a bound or a reference rather than a measured policy. */
  dashed?: boolean;
  marker?: PlotMarker;
  /** A CSS colour; one from the default palette, in order, when absent. */
  color?: string;
}

export interface PlotOptions {
  title?: string;
  xLabel: string;
  yLabel: string;
  series: readonly PlotSeries[];
  /** Pixels; 760 × 520 when absent. */
  width?: number;
  height?: number;
  /** Axis ranges; the data's, padded to round ticks, when absent. */
  xDomain?: readonly [number, number];
  yDomain?: readonly [number, number];
  /** How tick values read (default: as few decimals as the tick step needs). */
  xFormat?: (value: number) => string;
  yFormat?: (value: number) => string;
  /** Lines of small text under the plot: the command that made it, where the data came from. */
  notes?: readonly string[];
}

/** Eight colours that stay apart for the common kinds of colour blindness (Okabe–Ito), then grey. */
export const PLOT_PALETTE: readonly string[] = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#F0E442', '#999999'];

const MARGIN = { top: 44, right: 24, bottom: 58, left: 66 };
const LEGEND_ROW_PX = 18;
const NOTE_ROW_PX = 14;

/** The SVG text of a plot. Throws on a series with a non-finite coordinate: a plot of NaN is a bug upstream. */
export function svgPlot(options: PlotOptions): string {
  for (const series of options.series) {
    for (const point of series.points) {
      if (!Number.isFinite(point.x) || !Number.isFinite(point.y)) throw new Error(`svgPlot: series "${series.label}" has a point that is not a finite number (${point.x}, ${point.y})`);
    }
  }
  const width = options.width ?? 760;
  const plotHeight = options.height ?? 520;
  const legendRows = options.series.length;
  const notes = options.notes ?? [];
  const legendTop = plotHeight + 8;
  const height = legendTop + legendRows * LEGEND_ROW_PX + (notes.length ? 8 + notes.length * NOTE_ROW_PX : 0) + 8;
  const all = options.series.flatMap((series) => series.points);
  const xTicks = ticks(options.xDomain ?? extent(all.map((p) => p.x)));
  const yTicks = ticks(options.yDomain ?? extent(all.map((p) => p.y)));
  const [x0, x1] = options.xDomain ?? [xTicks[0] as number, xTicks[xTicks.length - 1] as number];
  const [y0, y1] = options.yDomain ?? [yTicks[0] as number, yTicks[yTicks.length - 1] as number];
  const left = MARGIN.left;
  const right = width - MARGIN.right;
  const top = MARGIN.top;
  const bottom = plotHeight - MARGIN.bottom;
  const sx = (x: number): number => left + ((x - x0) / (x1 - x0 || 1)) * (right - left);
  const sy = (y: number): number => bottom - ((y - y0) / (y1 - y0 || 1)) * (bottom - top);
  const xFormat = options.xFormat ?? formatFor(xTicks);
  const yFormat = options.yFormat ?? formatFor(yTicks);

  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${round(height)}" viewBox="0 0 ${width} ${round(height)}" font-family="Helvetica, Arial, sans-serif" font-size="12">`);
  out.push(`<rect x="0" y="0" width="${width}" height="${round(height)}" fill="#ffffff"/>`);
  if (options.title) out.push(`<text x="${round(width / 2)}" y="24" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(options.title)}</text>`);
  // Grid and ticks, inside the plot area only.
  for (const tick of xTicks.filter((t) => t >= x0 && t <= x1)) {
    const x = round(sx(tick));
    out.push(`<line x1="${x}" y1="${top}" x2="${x}" y2="${bottom}" stroke="#e4e4e4"/>`);
    out.push(`<text x="${x}" y="${bottom + 16}" text-anchor="middle" fill="#333333">${escapeXml(xFormat(tick))}</text>`);
  }
  for (const tick of yTicks.filter((t) => t >= y0 && t <= y1)) {
    const y = round(sy(tick));
    out.push(`<line x1="${left}" y1="${y}" x2="${right}" y2="${y}" stroke="#e4e4e4"/>`);
    out.push(`<text x="${left - 6}" y="${round(y + 4)}" text-anchor="end" fill="#333333">${escapeXml(yFormat(tick))}</text>`);
  }
  out.push(`<rect x="${left}" y="${top}" width="${round(right - left)}" height="${round(bottom - top)}" fill="none" stroke="#333333"/>`);
  out.push(`<text x="${round((left + right) / 2)}" y="${bottom + 38}" text-anchor="middle">${escapeXml(options.xLabel)}</text>`);
  out.push(`<text x="16" y="${round((top + bottom) / 2)}" text-anchor="middle" transform="rotate(-90 16 ${round((top + bottom) / 2)})">${escapeXml(options.yLabel)}</text>`);

  // Series, clipped to the plot area so a point outside the domain cannot draw over the axes.
  out.push(`<clipPath id="plot-area"><rect x="${left}" y="${top}" width="${round(right - left)}" height="${round(bottom - top)}"/></clipPath>`);
  out.push(`<g clip-path="url(#plot-area)">`);
  options.series.forEach((series, index) => {
    const color = series.color ?? (PLOT_PALETTE[index % PLOT_PALETTE.length] as string);
    const drawLine = series.line ?? series.points.length > 1;
    if (drawLine && series.points.length > 1) {
      const path = series.points.map((p, i) => `${i === 0 ? 'M' : 'L'}${round(sx(p.x))},${round(sy(p.y))}`).join(' ');
      out.push(`<path d="${path}" fill="none" stroke="${color}" stroke-width="2"${series.dashed ? ' stroke-dasharray="6 4"' : ''}/>`);
    }
    const marker = series.marker ?? 'circle';
    for (const point of series.points) out.push(markerSvg(marker, sx(point.x), sy(point.y), color));
  });
  out.push(`</g>`);
  // Point labels go outside the clip so a label near the edge is still read whole.
  options.series.forEach((series, index) => {
    const color = series.color ?? (PLOT_PALETTE[index % PLOT_PALETTE.length] as string);
    for (const point of series.points) {
      if (!point.label) continue;
      out.push(`<text x="${round(sx(point.x) + 7)}" y="${round(sy(point.y) - 6)}" font-size="10" fill="${color}">${escapeXml(point.label)}</text>`);
    }
  });

  // Legend under the plot, one row a series: the line style and marker as drawn, then the label.
  options.series.forEach((series, index) => {
    const color = series.color ?? (PLOT_PALETTE[index % PLOT_PALETTE.length] as string);
    const y = legendTop + index * LEGEND_ROW_PX + LEGEND_ROW_PX / 2;
    const drawLine = series.line ?? series.points.length > 1;
    if (drawLine) out.push(`<line x1="${left}" y1="${round(y)}" x2="${left + 28}" y2="${round(y)}" stroke="${color}" stroke-width="2"${series.dashed ? ' stroke-dasharray="6 4"' : ''}/>`);
    out.push(markerSvg(series.marker ?? 'circle', left + 14, y, color));
    out.push(`<text x="${left + 36}" y="${round(y + 4)}">${escapeXml(series.label)}</text>`);
  });
  notes.forEach((note, index) => {
    const y = legendTop + legendRows * LEGEND_ROW_PX + 8 + (index + 1) * NOTE_ROW_PX - 3;
    out.push(`<text x="${left}" y="${round(y)}" font-size="10" fill="#555555">${escapeXml(note)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** Round tick values covering [min, max]: 4 to 10 of them, at 1, 2 or 5 times a power of ten. */
export function ticks([min, max]: readonly [number, number]): number[] {
  if (min === max) return [min - 1, min, min + 1];
  const span = max - min;
  const raw = span / 6;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].map((m) => m * power).find((s) => span / s <= 8) ?? 10 * power) as number;
  const first = Math.floor(min / step + 1e-9) * step;
  const result: number[] = [];
  for (let value = first; value < max + step - 1e-9 * step; value += step) result.push(roundTo(value, step));
  return result;
}

function extent(values: readonly number[]): [number, number] {
  if (values.length === 0) return [0, 1];
  return [Math.min(...values), Math.max(...values)];
}

/** A formatter with as many decimals as the tick step needs. */
function formatFor(tickValues: readonly number[]): (value: number) => string {
  const step = tickValues.length > 1 ? Math.abs((tickValues[1] as number) - (tickValues[0] as number)) : 1;
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  return (value) => value.toFixed(decimals);
}

function roundTo(value: number, step: number): number {
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9)) + 1;
  return Number(value.toFixed(decimals));
}

function markerSvg(marker: PlotMarker, x: number, y: number, color: string): string {
  const [cx, cy] = [round(x), round(y)];
  switch (marker) {
    case 'none':
      return '';
    case 'circle':
      return `<circle cx="${cx}" cy="${cy}" r="4" fill="${color}"/>`;
    case 'square':
      return `<rect x="${round(x - 4)}" y="${round(y - 4)}" width="8" height="8" fill="${color}"/>`;
    case 'diamond':
      return `<path d="M${cx},${round(y - 5)} L${round(x + 5)},${cy} L${cx},${round(y + 5)} L${round(x - 5)},${cy} Z" fill="${color}"/>`;
    case 'triangle':
      return `<path d="M${cx},${round(y - 5)} L${round(x + 5)},${round(y + 4)} L${round(x - 5)},${round(y + 4)} Z" fill="${color}"/>`;
    case 'cross':
      return `<path d="M${round(x - 5)},${round(y - 5)} L${round(x + 5)},${round(y + 5)} M${round(x - 5)},${round(y + 5)} L${round(x + 5)},${round(y - 5)}" stroke="${color}" stroke-width="2"/>`;
  }
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
