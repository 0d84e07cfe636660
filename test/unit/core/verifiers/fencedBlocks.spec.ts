import { describe, expect, it } from 'vitest';
import { seededRandom, type Random } from '../../../../src/core/random';
import { fencedBlocks, type FencedBlock } from '../../../../src/core/verifiers/fencedBlocks';

/**
 * The fence pattern every check was built on, run as a pattern (quadratic on hostile answers): the
 * scanner must find exactly what it finds.
 */
function patternBlocks(text: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const pattern = /^([ \t]*)(```+|~~~+)[ \t]*([\w+.#-]*)([^\n]*)\n([\s\S]*?)^\1?\2[ \t]*$/gm;
  for (const match of text.matchAll(pattern)) {
    const startLine = text.slice(0, match.index).split('\n').length + 1;
    blocks.push({ language: (match[3] ?? '').toLowerCase(), info: (match[4] ?? '').trim(), body: match[5] ?? '', startLine });
  }
  return blocks;
}

const pick = <T>(items: readonly T[], random: Random): T => items[Math.floor(random() * items.length)] as T;

/** Lines an answer is made of, hostile ones among them: fences of every length, indented, with tags and titles, and text. */
const LINES = [
  '```',
  '```ts',
  '```TS title="src/a.ts"',
  '````',
  '````md',
  '~~~',
  '~~~~',
  '  ```',
  '\t```',
  '  ```json',
  '``` ',
  '```\t',
  '``',
  '```x```',
  '```ts `',
  'const a = 1;',
  '',
  '  ',
  'x',
  '# heading',
  '~~~ python',
  ' ````',
  '`````',
];
const BREAKS = ['\n', '\n', '\n', '\r\n', '\r', '\u2028'];

function linesAnswer(random: Random): string {
  const count = 1 + Math.floor(random() * 14);
  let text = '';
  for (let i = 0; i < count; i++) text += pick(LINES, random) + (i < count - 1 || random() < 0.5 ? pick(BREAKS, random) : '');
  return text;
}

function soupAnswer(random: Random): string {
  const characters = ['`', '`', '`', '~', '~', ' ', '\t', '\n', '\n', '\r', 'a', 't', 's', '.', '#', '{', '"', '\u2029'];
  let text = '';
  const length = Math.floor(random() * 40);
  for (let i = 0; i < length; i++) text += pick(characters, random);
  return text;
}

describe('fencedBlocks', () => {
  it('finds exactly the blocks the fence pattern finds, on answers made of fence lines of every kind', () => {
    const random = seededRandom(26);
    for (let i = 0; i < 20_000; i++) {
      const text = linesAnswer(random);
      expect(fencedBlocks(text), JSON.stringify(text)).toEqual(patternBlocks(text));
    }
  });

  it('finds exactly the blocks the fence pattern finds, on random runs of fence characters, blanks and line breaks', () => {
    const random = seededRandom(8);
    for (let i = 0; i < 20_000; i++) {
      const text = soupAnswer(random);
      expect(fencedBlocks(text), JSON.stringify(text)).toEqual(patternBlocks(text));
    }
  });

  it('reads the tag, the rest of the opening line, the body and the line the body starts on', () => {
    const text = 'Intro\n\n```TS title="src/a.ts"\nconst a = 1;\n```\ntext\n  ~~~json\n{}\n  ~~~\n';
    expect(fencedBlocks(text)).toEqual([
      { language: 'ts', info: 'title="src/a.ts"', body: 'const a = 1;\n', startLine: 4 },
      { language: 'json', info: '', body: '{}\n', startLine: 8 },
    ]);
  });

  it('closes a longer opener with a shorter fence as the pattern does, the extra fence characters left in the line', () => {
    expect(fencedBlocks('````\nbody\n```\n')).toEqual([{ language: '', info: '`', body: 'body\n', startLine: 2 }]);
  });

  it('finds nothing in an answer of fence lines that never close, and every pair in one that does', () => {
    expect(fencedBlocks('```a\n'.repeat(1000))).toEqual([]);
    expect(fencedBlocks('```\n'.repeat(1000))).toHaveLength(500);
  });
});
