import { describe, expect, it } from 'vitest';
import { Redactor } from '../../../src/extension/redactor';

describe('Redactor', () => {
  it('hides every key it was given, wherever it appears in a line', () => {
    const redactor = new Redactor();
    redactor.add('or-v1-abcdef0123456789');
    expect(redactor.redact('401 from openrouter: key or-v1-abcdef0123456789 rejected (or-v1-abcdef0123456789)')).toBe(
      '401 from openrouter: key [key] rejected ([key])',
    );
  });

  it('hides bearer tokens and sk- keys it was never given', () => {
    const redactor = new Redactor();
    expect(redactor.redact('headers {"authorization": "Bearer abc.def-ghi"}')).toBe('headers {"authorization": "Bearer [key]"}');
    expect(redactor.redact('used sk-proj-ABCDEFGHIJKLMNOPQRSTUV')).toBe('used [key]');
  });

  it('does not blank ordinary words for a key too short to be one', () => {
    const redactor = new Redactor();
    redactor.add('the');
    expect(redactor.redact('the model answered')).toBe('the model answered');
  });
});
