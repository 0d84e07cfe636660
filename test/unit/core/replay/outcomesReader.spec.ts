import { describe, expect, it } from 'vitest';
import { parseOutcomes } from '../../../../src/core/replay/outcomes';
import { parsePrompts } from '../../../../src/core/replay/prompts';

/** The message a reader throws for `text`, or a note that it threw nothing. */
function refusal(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    return (error as Error).message;
  }
  return 'read without an error';
}

describe('the recorded outcomes reader, given a row of the wrong shape', () => {
  it("says in words what a field must be and what was written, with the file and line, not zod's phrase", () => {
    const good = '{"id":"p1","family":"code","m":{"a":{"c":1,"cost":0.1}}}';
    const bad = '{"id":"p2","family":"code","m":{"a":{"c":"yes","cost":0.1}}}';
    const said = refusal(() => parseOutcomes(`${good}\n${bad}\n`, 'runs.jsonl'));
    expect(said).toBe('runs.jsonl:2: m.a.c: must be one of 0 or 1, not "yes"');
    expect(said).not.toMatch(/Invalid option|expected one of/);
  });

  it('says a row without an id is missing one', () => {
    expect(refusal(() => parseOutcomes('{"family":"code","m":{"a":{"c":1,"cost":0}}}\n', 'runs.jsonl'))).toBe(
      'runs.jsonl:1: id: is missing',
    );
  });
});

describe('the prompts reader, given a row of the wrong shape', () => {
  it('says in words what is wrong and what a prompts row looks like', () => {
    const said = refusal(() => parsePrompts('{"id":"p1","prompt":7}\n', 'prompts.jsonl'));
    expect(said).toBe('prompts.jsonl:1: prompt: must be text in quotes, not 7 (a prompts row is {"id": …, "prompt": …})');
  });
});
