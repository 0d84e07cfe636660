import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { readStreamText } from '../../../src/cli/io';

const MEGABYTE = 1_000_000;

describe('readStreamText', () => {
  it('reads 1 MB through a real pipe from another process, whole', async () => {
    const child = spawn(process.execPath, ['-e', `process.stdout.write('x'.repeat(${MEGABYTE}) + 'end')`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const text = await readStreamText(child.stdout);
    expect(text.length).toBe(MEGABYTE + 3);
    expect(text.endsWith('xend')).toBe(true);
  });
});
