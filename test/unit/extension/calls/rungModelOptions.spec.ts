import { describe, expect, it } from 'vitest';
import { PlainError } from '../../../../src/extension/calls/plainErrors';
import { readRungModelOptions } from '../../../../src/extension/calls/rungModelOptions';

/** What a caller is told for `value`, or a note that it was read. */
function told(value: unknown): string {
  try {
    readRungModelOptions(value);
  } catch (error) {
    expect(error).toBeInstanceOf(PlainError);
    return (error as Error).message;
  }
  return 'read without an error';
}

describe("a caller's modelOptions.rung", () => {
  it('is read when absent, and keeps what it asks', () => {
    expect(readRungModelOptions(undefined)).toEqual({});
    expect(readRungModelOptions({ classKey: 'plan', schema: { type: 'object' }, conversationId: 'c1' })).toEqual({
      classKey: 'plan',
      schema: { type: 'object' },
      conversationId: 'c1',
    });
  });

  it("names each malformed field and what it must be in Rung's words, not zod's", () => {
    const said = told({ classKey: 5, conversationId: 7 });
    expect(said).toBe(
      'The modelOptions.rung given to Rung is malformed: classKey: must be text in quotes, not 5; conversationId: must be text in quotes, not 7',
    );
    expect(said).not.toMatch(/Invalid input|expected string, received/);
  });

  it('says why a schema the check cannot read is refused', () => {
    expect(told({ schema: { type: 'nonsense' } })).toMatch(
      /^The modelOptions\.rung given to Rung is malformed: schema: #\/type: unknown type "nonsense"/,
    );
  });
});
