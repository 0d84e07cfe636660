/**
 * A small SVG plot writer for the benchmark figures: labelled axes, lines and points, a legend. No
 * dependency and no script, so a plot renders the same in a browser, on GitHub and in an editor preview.
 *
 * @remarks
 * Deliberately general (any number of series, each a line, points or both, on linear axes whose ranges
 * are taken from the data unless given), so every benchmark that wants a figure can use it rather than
 * grow its own. Text is escaped; numbers are written with a fixed precision, so the same data give the
 * same bytes.
 */

export interface PlotPoint {
  x: number;
  y: number;
  /** A short label written beside the point. */
  label?: string;
}

export interface PlotSeries {
  name: string;
  points: readonly PlotPoint[];
  /** `line` joins the points in order; `points` marks each; `both` does both. */
  style: 'line' | 'points' | 'both';
  /** Any SVG colour; one of a fixed palette when absent, by the series' place. */
  color?: string;
  /** A dashed line, for a bound rather than a measurement. */
  dashed?: boolean;
}

export interface Plot {
  title: string;
  xLabel: string;
  yLabel: string;
  series: readonly PlotSeries[];
  /** Axis ranges; the data's, with a margin, when absent. */
  x?: { min: number; max: number };
  y?: { min: number; max: number };
  /** Pixels; 640 × 420 when absent. */
  width?: number;
  height?: number;
  /** Formats an axis tick; two significant decimals when absent. */
  formatX?: (value: number) => string;
  formatY?: (value: number) => string;
}

const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#7f7f7f'];
const MARGIN = { left: 64, right: 16, top: 36, bottom: 48 };
const TICKS = 5;

/** The plot as an SVG document. */
export function svgPlot(plot: Plot): string {
  const width = plot.width ?? 640;
  const height = plot.height ?? 420;
  const all = plot.series.flatMap((series) => series.points);
  const x = plot.x ?? padded(all.map((point) => point.x));
  const y = plot.y ?? padded(all.map((point) => point.y));
  const innerWidth = width - MARGIN.left - MARGIN.right;
  const innerHeight = height - MARGIN.top - MARGIN.bottom;
  const px = (value: number): number => MARGIN.left + ((value - x.min) / (x.max - x.min || 1)) * innerWidth;
  const py = (value: number): number => MARGIN.top + innerHeight - ((value - y.min) / (y.max - y.min || 1)) * innerHeight;
  const formatX = plot.formatX ?? ((value: number) => value.toFixed(2));
  const formatY = plot.formatY ?? ((value: number) => value.toFixed(2));
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="13">${escape(plot.title)}</text>`,
  ];
  for (let i = 0; i <= TICKS; i++) {
    const xv = x.min + ((x.max - x.min) * i) / TICKS;
    const yv = y.min + ((y.max - y.min) * i) / TICKS;
    out.push(`<line x1="${n(px(xv))}" y1="${MARGIN.top}" x2="${n(px(xv))}" y2="${MARGIN.top + innerHeight}" stroke="#e6e6e6"/>`);
    out.push(`<text x="${n(px(xv))}" y="${MARGIN.top + innerHeight + 16}" text-anchor="middle">${escape(formatX(xv))}</text>`);
    out.push(`<line x1="${MARGIN.left}" y1="${n(py(yv))}" x2="${MARGIN.left + innerWidth}" y2="${n(py(yv))}" stroke="#e6e6e6"/>`);
    out.push(`<text x="${MARGIN.left - 6}" y="${n(py(yv) + 4)}" text-anchor="end">${escape(formatY(yv))}</text>`);
  }
  out.push(`<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${innerWidth}" height="${innerHeight}" fill="none" stroke="#444444"/>`);
  out.push(`<text x="${MARGIN.left + innerWidth / 2}" y="${height - 10}" text-anchor="middle">${escape(plot.xLabel)}</text>`);
  out.push(`<text x="14" y="${MARGIN.top + innerHeight / 2}" text-anchor="middle" transform="rotate(-90 14 ${MARGIN.top + innerHeight / 2})">${escape(plot.yLabel)}</text>`);
  plot.series.forEach((series, index) => {
    const color = series.color ?? PALETTE[index % PALETTE.length];
    if (series.style !== 'points' && series.points.length > 1) {
      const path = series.points.map((point, i) => `${i === 0 ? 'M' : 'L'}${n(px(point.x))},${n(py(point.y))}`).join(' ');
      out.push(`<path d="${path}" fill="none" stroke="${color}" stroke-width="1.5"${series.dashed ? ' stroke-dasharray="5,4"' : ''}/>`);
    }
    if (series.style !== 'line') {
      for (const point of series.points) {
        out.push(`<circle cx="${n(px(point.x))}" cy="${n(py(point.y))}" r="4" fill="${color}"/>`);
        if (point.label) out.push(`<text x="${n(px(point.x) + 6)}" y="${n(py(point.y) - 6)}" fill="${color}">${escape(point.label)}</text>`);
      }
    }
    // Bottom right: on an accuracy-against-cost plot the dear, inaccurate corner is the empty one.
    const ly = MARGIN.top + innerHeight - 8 - (plot.series.length - 1 - index) * 15;
    const lx = MARGIN.left + innerWidth - 190;
    out.push(`<line x1="${lx}" y1="${ly - 4}" x2="${lx + 18}" y2="${ly - 4}" stroke="${color}" stroke-width="2"${series.dashed ? ' stroke-dasharray="5,4"' : ''}/>`);
    out.push(`<text x="${lx + 24}" y="${ly}">${escape(series.name)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** The values' range with a tenth of it added on each side. */
function padded(values: readonly number[]): { min: number; max: number } {
  if (values.length === 0) return { min: 0, max: 1 };
  const min = Math.min(...values);
  const max = Math.max(...values);
  const pad = (max - min) / 10 || Math.abs(max) / 10 || 1;
  return { min: min - pad, max: max + pad };
}

function n(value: number): string {
  return value.toFixed(1);
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
