import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateWorld, worldNamed, WORLDS } from '../../../src/bench/worlds';
import { main } from '../../../src/cli/main';
import { parseOutcomes } from '../../../src/core/replay/outcomes';
import { runReplay } from '../../../src/core/replay/replay';
import { CapturedIo } from '../support/CapturedIo';

/** `rung replay` with no recorded data of one's own: the generated worlds are built in. */

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rung-world-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('rung replay --world', () => {
  it('replays the named world made from --seed, in its time order, as scripts/quality.mjs does', async () => {
    const io = new CapturedIo(dir);
    expect(await main(['replay', '--world', 'drift', '--seed', '2', '--json'], io)).toBe(0);
    const world = worldNamed('drift');
    const { rows, models } = parseOutcomes(
      generateWorld(world, 2)
        .map((row) => JSON.stringify(row))
        .join('\n'),
      'drift',
    );
    const expected = await runReplay({ rows, models, verifier: { kind: 'perfect' }, classKey: 'family', seed: 2, inOrder: true });
    expect(JSON.parse(io.out)).toEqual(JSON.parse(JSON.stringify(expected)));
  });

  it('draws each seed its own world with --seeds, so the spread is over worlds, not one world replayed', async () => {
    const io = new CapturedIo(dir);
    expect(await main(['replay', '--world', 'spread-100x', '--seed', '3', '--seeds', '2', '--json'], io)).toBe(0);
    const runs = (JSON.parse(io.out) as { runs: { seed: number; policy: { accuracy: number; cost: number } }[] }).runs;
    const world = worldNamed('spread-100x');
    for (const [i, seed] of [3, 4].entries()) {
      const { rows, models } = parseOutcomes(
        generateWorld(world, seed)
          .map((row) => JSON.stringify(row))
          .join('\n'),
        'spread-100x',
      );
      const expected = await runReplay({ rows, models, verifier: { kind: 'perfect' }, classKey: 'family', seed, inOrder: true });
      expect(runs[i]?.policy).toEqual(JSON.parse(JSON.stringify(expected.policy)));
    }
    expect(runs[0]?.policy.cost).not.toBe(runs[1]?.policy.cost);
  });

  it("names the world in the table's first line", async () => {
    const io = new CapturedIo(dir);
    expect(await main(['replay', '--world', 'cheap-specialist'], io)).toBe(0);
    expect(io.out).toMatch(
      /^rung replay: 3000 prompts, verifier perfect, tradeoff quality, world cheap-specialist, wait worth \$0\.1\/min\n/,
    );
  });

  it('lists every world, with what it tests, in --help', async () => {
    const io = new CapturedIo(dir);
    expect(await main(['replay', '--help'], io)).toBe(0);
    for (const world of WORLDS) expect(io.out).toContain(`${world.name}: ${world.about.split(' ').slice(0, 4).join(' ')}`);
    expect(io.out).not.toMatch(/issue \d/);
  });

  it('says what it needs, naming the worlds, when given neither a file nor a world', async () => {
    const io = new CapturedIo(dir);
    expect(await main(['replay'], io)).toBe(2);
    expect(io.err.split('\n')[0]).toBe(
      `rung replay: needs an outcomes file, or --world NAME to replay a built-in generated world (${WORLDS.map((world) => world.name).join(', ')})`,
    );
  });

  it('refuses a world that does not exist, and a file and a world together', async () => {
    const io = new CapturedIo(dir);
    expect(await main(['replay', '--world', 'eleven'], io)).toBe(2);
    expect(io.err).toContain('rung replay: --world eleven: no such world (the worlds: spread-100x,');
    writeFileSync(join(dir, 'outcomes.jsonl'), '');
    const both = new CapturedIo(dir);
    expect(await main(['replay', 'outcomes.jsonl', '--world', 'drift'], both)).toBe(2);
    expect(both.err).toContain('give an outcomes file or --world drift, not both');
  });
});
