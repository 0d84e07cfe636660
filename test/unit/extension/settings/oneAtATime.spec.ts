import { describe, expect, it } from 'vitest';
import { oneAtATime } from '../../../../src/extension/settings/oneAtATime';

/** A reload that reads `settings` when it starts and finishes when the test says. */
function reloads(settings: { value: number }) {
  const started: { why: string; read: number; finish: () => void }[] = [];
  const inForce: number[] = [];
  const reload = oneAtATime(
    (why) =>
      new Promise<void>((resolve) => {
        const read = settings.value;
        started.push({
          why,
          read,
          finish: () => {
            inForce.push(read);
            resolve();
          },
        });
      }),
  );
  return { reload, started, inForce };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('oneAtATime', () => {
  it('starts a reload asked during another only after it ends, and the last one reads the newest settings', async () => {
    const settings = { value: 1 };
    const { reload, started, inForce } = reloads(settings);
    const first = reload('price cap');
    await turn();
    settings.value = 2;
    const second = reload('exploration');
    settings.value = 3;
    const third = reload('Ollama address');
    await turn();
    expect(started.map((run) => run.read)).toEqual([1]);
    started[0]?.finish();
    await first;
    await turn();
    // The two asked while the first ran are one reload, which read both changes.
    expect(started.map((run) => [run.why, run.read])).toEqual([
      ['price cap', 1],
      ['exploration', 3],
    ]);
    expect(second).toBe(third);
    started[1]?.finish();
    await third;
    expect(inForce).toEqual([1, 3]);
  });

  it('goes on after a reload that failed', async () => {
    let calls = 0;
    const reload = oneAtATime(async () => {
      calls += 1;
      if (calls === 1) throw new Error('the panel file is not JSON');
    });
    await expect(reload('first')).rejects.toThrow('not JSON');
    await reload('second');
    expect(calls).toBe(2);
  });
});
