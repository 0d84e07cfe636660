import { describe, expect, it } from 'vitest';
import { formatUsd } from '../../../src/protocol/formatUsd';

describe('formatUsd', () => {
  it('tells a local call from a cheap cloud one, with cents from a dollar up', () => {
    expect([0, 0.00039, 0.0031, 0.052, 2.5, 12].map(formatUsd)).toEqual(['$0', '$0.0004', '$0.0031', '$0.052', '$2.50', '$12.00']);
  });

  it('drops zeros past the cents, so a list price reads as it is written', () => {
    expect([0.15, 0.6, 0.09, 0.004].map(formatUsd)).toEqual(['$0.15', '$0.60', '$0.09', '$0.004']);
  });

  it('says an unknown or impossible amount is unknown', () => {
    expect([null, undefined, Number.NaN, Number.POSITIVE_INFINITY].map(formatUsd)).toEqual(['$?', '$?', '$?', '$?']);
  });
});
