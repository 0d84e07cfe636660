import { describe, expect, it } from 'vitest';
import type { Observation } from '../../../../src/core/ratings';
import { LedgerState, type LedgerOp } from '../../../../src/core/ledger/ledgerState';
import { TeamFold, type TeamRead } from '../../../../src/core/ledger/teamFold';

function observation(model: string, success: boolean, at: number, classKey = 'code'): Observation {
  return { model, classKey, success, at };
}

/** A read as the server would give it: only the fields a test names, the rest empty. */
function read(fields: Partial<TeamRead> & Pick<TeamRead, 'lastId'>): TeamRead {
  return { observations: [], resetMark: null, imports: [], aliases: new Map(), spawns: new Map(), skipped: {}, ...fields };
}

function ratingsOf(state: LedgerState): Record<string, [number, number, number]> {
  return Object.fromEntries(
    [...state.ratings.values()].map((entry) => [`${entry.model} ${entry.classKey}`, [entry.graded, entry.ok, entry.rating]]),
  );
}

function folded(observations: Observation[]): LedgerState {
  return new LedgerState('').applied(observations.map((item): LedgerOp => ({ kind: 'observe', observation: item })));
}

const first = [observation('a', true, 1), observation('b', false, 2)];
const second = [observation('a', false, 3), observation('b', true, 4)];

describe('TeamFold', () => {
  it('folds a read of the new rows on top of the earlier fold, as one fold of all the rows would', () => {
    const fold = new TeamFold();
    fold.apply(read({ observations: first, lastId: 2 }));
    expect(fold.position).toEqual({ resetMark: null, lastId: 2 });
    const base = fold.apply(read({ observations: second, lastId: 4 }));
    expect(ratingsOf(base)).toEqual(ratingsOf(folded([...first, ...second])));
  });

  it('folds from the start again when a reset it has not seen arrives', () => {
    const fold = new TeamFold();
    fold.apply(read({ observations: first, lastId: 2 }));
    // After a reset the server sends every row the reset did not forget, from the first id.
    const base = fold.apply(read({ observations: second, lastId: 4, resetMark: '1' }));
    expect(ratingsOf(base)).toEqual(ratingsOf(folded(second)));
    expect(fold.position).toEqual({ resetMark: '1', lastId: 4 });
  });

  it('adds up unusable observations across reads, starts their count over after a reset, and keeps what was skipped before the first read', () => {
    const fold = new TeamFold({ meta: 1 });
    fold.apply(read({ lastId: 2, skipped: { observations: 2, aliases: 1 } }));
    fold.apply(read({ lastId: 3, skipped: { observations: 1, aliases: 0 } }));
    expect(fold.skippedRows).toEqual({ meta: 1, observations: 3, aliases: 0 });
    fold.apply(read({ lastId: 3, resetMark: '7', skipped: { observations: 1 } }));
    expect(fold.skippedRows).toEqual({ meta: 1, observations: 1, aliases: 0 });
  });

  it('merges the imports after the observations, and leaves a file its own imports when it pulls', () => {
    const fold = new TeamFold();
    const imported = { sourceId: 'file-1', model: 'c', classKey: 'code', graded: 5, ok: 4, rating: 1.2, updatedAt: 10 };
    const base = fold.apply(read({ observations: first, lastId: 2, imports: [imported], aliases: new Map([['alias', 'a']]) }));
    expect(ratingsOf(base)['c code']?.slice(0, 2)).toEqual([5, 4]);
    expect([...base.aliases]).toEqual([['alias', 'a']]);
    expect(fold.importSources()).toEqual(['file-1']);
    expect(fold.entriesExcept('file-1').map((entry) => entry.model)).toEqual(['a', 'b']);
    expect(
      fold
        .entriesExcept('team:other')
        .map((entry) => entry.model)
        .sort(),
    ).toEqual(['a', 'b', 'c']);
  });
});
