import { describe, expect, it } from 'vitest';
import { INTERRUPTED_REASON, reopenedReason } from '../../../../src/core/verdict';
import { InterruptedCalls, type NoteStore } from '../../../../src/extension/calls/interruptedCalls';
import { decisionRow } from '../../support/decisionRow';

/** Workspace state as a map, as VS Code's memento keeps it. */
class MapNotes implements NoteStore {
  readonly values = new Map<string, unknown>();
  get<T>(key: string): T | undefined {
    return this.values.get(key) as T | undefined;
  }
  update(key: string, value: unknown): Promise<void> {
    this.values.set(key, value);
    return Promise.resolve();
  }
}

const MINUTE = 60_000;
/** 2026-12-03 09:12 UTC. */
const NINE_TWELVE = Date.UTC(2026, 11, 3, 9, 12);

function interrupted(call: string, at: number, model = 'slow-coder:7b') {
  return decisionRow({
    call,
    at,
    model,
    class: 'edit',
    shape: 'typescript',
    rung: 1,
    verdict: 'interrupted',
    verdictReason: INTERRUPTED_REASON,
  });
}

describe('calls a closed or reloaded window interrupted', () => {
  it('are named once, with the model that was answering and when, as cut off and not graded', async () => {
    const notes = new MapNotes();
    const calls = new InterruptedCalls(notes);
    const rows = [
      interrupted('c2', NINE_TWELVE),
      decisionRow({ call: 'c2', at: NINE_TWELVE - MINUTE, model: 'tiny-coder:1b', verdict: 'fail' }),
    ];

    const first = await calls.unnamed(rows);
    expect(first).toBe(
      'Your edit/typescript call of 09:12 UTC was interrupted: the window closed or reloaded while slow-coder:7b was answering, so that answer is cut off. It does not count for or against any model; ask again for a whole answer.',
    );
    expect(await calls.unnamed(rows)).toBeUndefined();
    // Another window on the same workspace remembers it was said.
    expect(await new InterruptedCalls(notes).unnamed(rows)).toBeUndefined();
  });

  it('names the newest and counts the others not yet named', async () => {
    const calls = new InterruptedCalls(new MapNotes());
    const said = await calls.unnamed([interrupted('c3', NINE_TWELVE), interrupted('c1', NINE_TWELVE - 60 * MINUTE, 'qwen3:14b')]);
    expect(said).toMatch(
      /^Your edit\/typescript call of 09:12 UTC was interrupted: .* slow-coder:7b .* ask again for a whole answer\. 1 earlier call was interrupted too\.$/,
    );
  });

  it('says nothing of a call a reopened session cut off: that happened in a window the user was looking at', async () => {
    const calls = new InterruptedCalls(new MapNotes());
    const reopened = { ...interrupted('c5', NINE_TWELVE), verdictReason: reopenedReason('the key for openrouter changed') };
    expect(await calls.unnamed([reopened])).toBeUndefined();
  });

  it('says nothing of calls stopped by the user or interrupted before the last one named', async () => {
    const notes = new MapNotes();
    const calls = new InterruptedCalls(notes);
    expect(
      await calls.unnamed([decisionRow({ call: 'c1', at: NINE_TWELVE, verdict: 'stopped', verdictReason: 'stopped by the user' })]),
    ).toBeUndefined();
    await calls.unnamed([interrupted('c2', NINE_TWELVE)]);
    expect(await calls.unnamed([interrupted('c0', NINE_TWELVE - MINUTE)])).toBeUndefined();
    expect(await calls.unnamed([interrupted('c4', NINE_TWELVE + MINUTE)])).toMatch(
      /^Your edit\/typescript call of 09:13 UTC was interrupted/,
    );
  });
});
