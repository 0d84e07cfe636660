import { describe, expect, it } from 'vitest';
import { callsToStopOpening } from '../../../../src/bench/qualityMeasures';
import { generateWorld, worldNamed } from '../../../../src/bench/worlds';
import { MemoryDecisionSink } from '../../../../src/core/decisions/decision';
import { runReplay } from '../../../../src/core/replay/replay';

describe('the router under drift', () => {
  it('stops opening with a swapped model within 40 calls at its class in the generated drift world', async () => {
    const world = worldNamed('drift');
    const rows = generateWorld(world, 1);
    const sink = new MemoryDecisionSink();
    await runReplay({
      rows,
      models: world.models.map((model) => model.slug),
      verifier: { kind: 'perfect' },
      classKey: 'family',
      seed: 1,
      inOrder: true,
      sink,
    });
    const calls = callsToStopOpening(rows, sink.rows, 'swapped', 'alpha', rows.length / 2);
    // Before the swap it opened the class: the measure is about unlearning, not about never having learned.
    const before = callsToStopOpening(rows, sink.rows, 'swapped', 'alpha', 0);
    expect(before).toBeGreaterThan(400);
    expect(calls).toBeGreaterThan(0);
    expect(calls).toBeLessThanOrEqual(40);
  });
});
