import { describe, expect, it } from 'vitest';
import { svgPlot, ticks, type PlotOptions } from '../../../src/bench/svgPlot';

const options: PlotOptions = {
  title: 'Accuracy & cost <test>',
  xLabel: 'cost, %',
  yLabel: 'accuracy',
  series: [
    { label: 'policy "a"', points: [{ x: 10, y: 0.8, label: '×10' }, { x: 40, y: 0.85 }] },
    { label: 'bound', points: [{ x: 5, y: 0.82 }, { x: 30, y: 0.9 }], dashed: true, marker: 'none' },
    { label: 'one point', points: [{ x: 100, y: 0.83 }], marker: 'cross' },
  ],
  notes: ['node scripts/x.mjs'],
};

/** The numbers of an attribute of every element of one tag, in document order. */
function attributes(svg: string, tag: string, attribute: string): number[] {
  return [...svg.matchAll(new RegExp(`<${tag} [^>]*${attribute}="([-\\d.]+)"`, 'g'))].map((match) => Number(match[1]));
}

describe('svgPlot', () => {
  it('writes a standalone SVG with a title, axis labels, one legend row per series and the notes, all escaped', () => {
    const svg = svgPlot(options);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg).toContain('Accuracy &amp; cost &lt;test&gt;');
    expect(svg).toContain('>policy &quot;a&quot;</text>');
    for (const text of ['>bound</text>', '>one point</text>', '>cost, %</text>', '>accuracy</text>', '>node scripts/x.mjs</text>', '>×10</text>']) expect(svg).toContain(text);
    expect(svg).not.toMatch(/NaN|undefined/);
  });

  it('draws a line through a series of two points or more, dashed when asked, and none for a single point', () => {
    const svg = svgPlot(options);
    const paths = [...svg.matchAll(/<path d="M[^"]*" fill="none"[^>]*>/g)].map((match) => match[0]);
    expect(paths).toHaveLength(2);
    expect(paths[0]).not.toContain('stroke-dasharray');
    expect(paths[1]).toContain('stroke-dasharray');
  });

  it('places a higher value higher and a larger x further right', () => {
    const svg = svgPlot({ xLabel: 'x', yLabel: 'y', series: [{ label: 's', points: [{ x: 1, y: 1 }, { x: 2, y: 3 }] }] });
    const [cx1, cx2] = attributes(svg, 'circle', 'cx');
    const [cy1, cy2] = attributes(svg, 'circle', 'cy');
    expect(cx2).toBeGreaterThan(cx1 as number);
    expect(cy2).toBeLessThan(cy1 as number);
  });

  it('places a point by the axis ranges it is given', () => {
    const svg = svgPlot({ xLabel: 'x', yLabel: 'y', series: [{ label: 'one', points: [{ x: 5, y: 5 }] }], xDomain: [0, 10], yDomain: [0, 10], width: 200, height: 200 });
    // Plot area x 66…176 and y 44…142: the middle is (121, 93).
    expect(attributes(svg, 'circle', 'cx')[0]).toBe(121);
    expect(attributes(svg, 'circle', 'cy')[0]).toBe(93);
  });

  it('marks the points of a series drawn without a line, and joins none of them', () => {
    const svg = svgPlot({ xLabel: 'x', yLabel: 'y', series: [{ label: 'points only', points: [{ x: 1, y: 1 }, { x: 2, y: 2 }], line: false }] });
    const plotArea = svg.slice(svg.indexOf('<g clip-path'), svg.indexOf('</g>'));
    expect(plotArea).not.toContain('<path');
    expect(attributes(plotArea, 'circle', 'cx')).toHaveLength(2);
  });

  it('gives the same bytes for the same figures', () => {
    expect(svgPlot(options)).toBe(svgPlot(options));
  });

  it('refuses a point that is not a finite number, naming its series', () => {
    expect(() => svgPlot({ xLabel: 'x', yLabel: 'y', series: [{ label: 'broken', points: [{ x: Number.NaN, y: 1 }] }] })).toThrow(/series "broken"/);
  });

  it('keeps the given axis ranges and formats their ticks as asked', () => {
    const svg = svgPlot({ ...options, xDomain: [0, 100], yDomain: [0.7, 0.9], xFormat: (value) => `${value}%` });
    expect(svg).toContain('>0%</text>');
    expect(svg).toContain('>100%</text>');
    expect(svg).toContain('>0.70</text>');
    expect(svg).toContain('>0.90</text>');
  });
});

describe('ticks', () => {
  it('covers the range with round steps of 1, 2 or 5 times a power of ten', () => {
    expect(ticks([0, 100])).toEqual([0, 20, 40, 60, 80, 100]);
    expect(ticks([0.74, 0.86])).toEqual([0.74, 0.76, 0.78, 0.8, 0.82, 0.84, 0.86]);
    const wide = ticks([3, 97]);
    expect(wide[0]).toBeLessThanOrEqual(3);
    expect(wide[wide.length - 1]).toBeGreaterThanOrEqual(97);
    expect(wide.length).toBeLessThanOrEqual(10);
  });
});
