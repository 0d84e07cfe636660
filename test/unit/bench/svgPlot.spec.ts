import { describe, expect, it } from 'vitest';
import { svgPlot, type Plot } from '../../../src/bench/svgPlot';

const plot: Plot = {
  title: 'accuracy <against> cost & more',
  xLabel: 'cost',
  yLabel: 'accuracy',
  series: [
    { name: 'bound', points: [{ x: 0, y: 0.5 }, { x: 10, y: 0.9 }, { x: 20, y: 0.95 }], style: 'line', dashed: true },
    { name: 'Rung', points: [{ x: 12, y: 0.93, label: 'quality' }], style: 'points' },
  ],
};

describe('svgPlot', () => {
  it('draws a line for a line series and a labelled mark for each point, with a legend entry each', () => {
    const svg = svgPlot(plot);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.match(/<path d="M[^"]+ L[^"]+ L[^"]+"/g)).toHaveLength(1);
    expect(svg).toContain('stroke-dasharray="5,4"');
    expect(svg.match(/<circle /g)).toHaveLength(1);
    expect(svg).toContain('>quality</text>');
    expect(svg).toContain('>bound</text>');
    expect(svg).toContain('>Rung</text>');
  });

  it('escapes text and gives the same bytes for the same data', () => {
    const svg = svgPlot(plot);
    expect(svg).toContain('accuracy &lt;against&gt; cost &amp; more');
    expect(svgPlot(plot)).toBe(svg);
  });

  it('places a point by the axes it is given', () => {
    const svg = svgPlot({ ...plot, series: [{ name: 'one', points: [{ x: 5, y: 5 }], style: 'points' }], x: { min: 0, max: 10 }, y: { min: 0, max: 10 }, width: 200, height: 200 });
    // 64 + 0.5 × (200 − 64 − 16) = 124; 36 + 116 − 0.5 × 116 = 94.
    expect(svg).toContain('<circle cx="124.0" cy="94.0" r="4"');
  });
});
