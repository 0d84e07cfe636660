import { describe, expect, it } from 'vitest';
import { failureForStatus, parseRetryAfterMs, redactor, serverMessage } from '../../../../src/core/providers/transport';

describe('parseRetryAfterMs', () => {
  const now = Date.UTC(2025, 5, 12, 8, 0, 0);

  it('reads Retry-After in seconds, as an HTTP date, and OpenAI retry-after-ms', () => {
    expect(parseRetryAfterMs(new Headers({ 'retry-after': '7' }), now)).toBe(7_000);
    expect(parseRetryAfterMs(new Headers({ 'retry-after': '1.5' }), now)).toBe(1_500);
    expect(parseRetryAfterMs(new Headers({ 'retry-after': 'Thu, 12 Jun 2025 08:00:30 GMT' }), now)).toBe(30_000);
    expect(parseRetryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
  });

  it('reads a date in the past as no wait, and nonsense as nothing', () => {
    expect(parseRetryAfterMs(new Headers({ 'retry-after': 'Thu, 12 Jun 2025 07:59:00 GMT' }), now)).toBe(0);
    expect(parseRetryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(parseRetryAfterMs(new Headers(), now)).toBeUndefined();
  });
});

describe('failureForStatus', () => {
  it('sorts statuses into the kinds the cascade acts on', () => {
    expect([401, 403, 404].map((status) => failureForStatus('p', status, '', undefined).kind)).toEqual(['unavailable', 'unavailable', 'unavailable']);
    expect([408, 429, 500, 502, 503, 400].map((status) => failureForStatus('p', status, '', undefined).kind)).toEqual(Array(6).fill('provider-error'));
  });

  it('leaves the server body out of a rejected-key message', () => {
    expect(failureForStatus('openai', 401, 'Incorrect API key provided: sk-abc', undefined).message).toBe('openai: the API key was rejected (401)');
  });
});

describe('redactor', () => {
  it('replaces every occurrence of every secret', () => {
    expect(redactor(['sk-secret-1', 'tok-2'])('a sk-secret-1 b tok-2 c sk-secret-1')).toBe('a [redacted] b [redacted] c [redacted]');
  });
});

describe('serverMessage', () => {
  it('reads the error shapes Ollama and OpenAI send, and plain text', () => {
    expect(serverMessage('{"error":"model \\"x\\" not found"}')).toBe('model "x" not found');
    expect(serverMessage('{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}')).toBe('Rate limit reached');
    expect(serverMessage('<html>\n  Bad Gateway\n</html>')).toBe('<html> Bad Gateway </html>');
  });
});
