import { describe, expect, it } from 'vitest';
import { JsonAnswerVerifier } from '../../../../src/core/verifiers/jsonAnswerVerifier';

const answer = (text: string, toolCalls: { id: string; name: string; arguments: string }[] = []) => ({
  text,
  toolCalls,
  model: 'qwen2.5:3b',
});
const verify = (text: string) => new JsonAnswerVerifier().verify(answer(text));

describe('JsonAnswerVerifier', () => {
  it('passes an answer that is JSON, whole', async () => {
    expect(await verify('  {"city": "Paris", "population": 2102650}\n')).toEqual({
      verdict: 'pass',
      reason: 'valid JSON (the whole answer)',
    });
    expect(await verify('["red", "green", "blue"]')).toEqual({ verdict: 'pass', reason: 'valid JSON (the whole answer)' });
  });

  it('passes JSON in a ```json block among prose, and in an untagged block that opens with a brace', async () => {
    expect(await verify('Here you go:\n\n```json\n{"ok": true}\n```\n\nAnything else?')).toEqual({
      verdict: 'pass',
      reason: 'valid JSON (the ```json block at line 3)',
    });
    expect(await verify('Sure:\n```\n[1, 2]\n```')).toEqual({ verdict: 'pass', reason: 'valid JSON (the ``` block at line 2)' });
  });

  it('passes one object on lines of its own in the prose, and an object the answer opens with before a sentence', async () => {
    expect(await verify('Here is the user:\n{\n  "name": "Ada",\n  "age": 36\n}\nLet me know if you need more.')).toEqual({
      verdict: 'pass',
      reason: 'valid JSON (the object at line 2)',
    });
    expect(await verify('{"name": "Ada"}\n\nThis object holds the name.')).toEqual({
      verdict: 'pass',
      reason: 'valid JSON (the object at line 1)',
    });
  });

  it('fails an answer with no JSON in it, saying where it looked', async () => {
    expect(await verify('The capital of France is Paris, with about two million people.')).toEqual({
      verdict: 'fail',
      reason: 'no JSON in the answer: neither the whole answer, a ```json block, nor an object or array on lines of its own',
    });
  });

  it('does not take a bracketed reference in prose for JSON', async () => {
    expect((await verify('Paris is the capital.\n[1] see the census of 2021')).verdict).toBe('fail');
  });

  it('fails a trailing comma at its line and column in the answer', async () => {
    const check = await verify('Here you go:\n```json\n{\n  "a": 1,\n}\n```');
    expect(check).toEqual({
      verdict: 'fail',
      reason: 'invalid JSON in the ```json block at line 2: Expected double-quoted property name at line 5 column 1',
    });
  });

  it('fails JSON cut off before its end, and a token JSON does not know, each at its place', async () => {
    expect(await verify('{"steps": ["read", "change"')).toEqual({
      verdict: 'fail',
      reason: "invalid JSON in the whole answer: Expected ',' or ']' after array element at line 1 column 28",
    });
    expect(await verify('{"done": tru}')).toEqual({
      verdict: 'fail',
      reason: "invalid JSON in the whole answer: Unexpected token '}' at line 1 column 10",
    });
  });

  it('passes when any place holds JSON that parses, and reports the first that does not when none does', async () => {
    expect((await verify('```json\n{"a": 1,}\n```\nFixed:\n```json\n{"a": 1}\n```')).verdict).toBe('pass');
    expect(await verify('```json\n{"a": 1,}\n```\nand\n```json\n[1 2]\n```')).toEqual({
      verdict: 'fail',
      reason: 'invalid JSON in the ```json block at line 1: Expected double-quoted property name at line 2 column 9',
    });
  });

  it('leaves a tool call unjudged: the JSON comes in words after the tools have run', async () => {
    const check = await new JsonAnswerVerifier().verify(answer('', [{ id: 'c1', name: 'read_file', arguments: '{"path": "a.json"}' }]));
    expect(check.verdict).toBe('unverified');
  });
});
