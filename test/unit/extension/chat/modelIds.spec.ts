import { describe, expect, it } from 'vitest';
import { pickerLimits } from '../../../../src/extension/chat/modelIds';

describe("a model's context as the model picker is told it", () => {
  it("adds up to the panel's context, so the picker's Max context says the panel's own figure", () => {
    expect(pickerLimits(32_768)).toEqual({ maxInputTokens: 24_576, maxOutputTokens: 8_192 });
    expect(pickerLimits(128_000)).toEqual({ maxInputTokens: 119_808, maxOutputTokens: 8_192 });
  });

  it('gives a small window a quarter to the output, never all of it', () => {
    expect(pickerLimits(8_192)).toEqual({ maxInputTokens: 6_144, maxOutputTokens: 2_048 });
  });
});
