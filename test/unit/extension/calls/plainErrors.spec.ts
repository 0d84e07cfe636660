import { describe, expect, it } from 'vitest';
import { PanelError } from '../../../../src/core/panel';
import { RoutingError } from '../../../../src/core/routing/rank';
import { ContextRefusalError } from '../../../../src/core/session/session';
import type { Candidate } from '../../../../src/core/routing/types';
import { noAnswerText, plainError, PlainError, providerDownText, retryRefusal } from '../../../../src/extension/calls/plainErrors';

/** The extension's not-set-up error, as the session host raises it (its class imports vscode). */
class NotSetUpError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotSetUpError';
  }
}

const DOWN = {
  model: 'test/strong-model',
  reason: 'pruned: provider acme unavailable: acme: no server at http://127.0.0.1:9 (ECONNREFUSED)',
};
const NOT_ABOVE = { model: 'tiny-coder:1b', reason: 'pruned: not above tiny-coder:1b on the ladder (a stronger model was asked for)' };
const BUDGET = { model: 'test/strong-model', reason: 'pruned: daily budget $1.00 reached ($1.02 spent today)' };

/** What the editor prints of an error: its message, and its stack when it has one. */
function shown(error: Error): string {
  return error.stack ? `${error.message}: ${error.stack}` : error.message;
}

describe('the error Rung Auto hands the editor', () => {
  it('says how to start when nothing is set up, without a stack, a class name or a path', () => {
    const error = plainError(new NotSetUpError('no panel is configured, and no local Ollama answered at http://127.0.0.1:11434'));
    expect(error).toBeInstanceOf(PlainError);
    expect(shown(error)).toBe(
      'Rung has nothing to route to yet: no panel is configured, and no local Ollama answered at http://127.0.0.1:11434. Start Ollama with a model pulled (ollama serve, then ollama pull qwen2.5-coder:7b), or describe a panel in .rung/panel.json and set its provider\'s key with "Rung: Set Provider Key".',
    );
  });

  it("names the provider that is down in words, not the router's record, when no model could take the call", () => {
    const said = shown(plainError(new RoutingError('no model can take this call (…)', [NOT_ABOVE, DOWN])));
    expect(said).toBe(
      'Rung got no answer: acme is unreachable (connection refused at http://127.0.0.1:9). Try again once it is back, or pick another model.',
    );
    expect(said).not.toMatch(/pruned|on the ladder|ECONNREFUSED/);
  });

  it('says the budget is spent and how to raise it', () => {
    expect(shown(plainError(new RoutingError('no model can take this call (…)', [BUDGET])))).toBe(
      "Rung got no answer: Today's budget of $1.00 is spent ($1.02 so far), so Rung asks no paid model until tomorrow (UTC); local models still answer. Raise it with the rung.dailyBudget setting to go on now.",
    );
  });

  it('says what a request too long for every model needs, and a broken panel in one line', () => {
    const context = plainError(new ContextRefusalError({ neededTokens: 90_000, largestContext: 32_768, largestModel: 'qwen3:14b' }));
    expect(shown(context)).toMatch(
      /^Rung cannot send this request: this call needs about 90000 tokens .* Shorten it, or add a model with a larger context to the panel\.$/,
    );
    const panel = plainError(new PanelError('.rung/panel.json', ['models.0.slug: required']));
    expect(shown(panel)).toBe("Rung's panel is invalid (.rung/panel.json); open it and mend it, the Rung log says what is wrong.");
  });

  it('reads once as a string, where an API caller or a log prints it, without naming Rung twice', () => {
    const error = plainError(new RoutingError('no model can take this call (…)', [DOWN]));
    expect(String(error)).toBe(
      'Error: Rung got no answer: acme is unreachable (connection refused at http://127.0.0.1:9). Try again once it is back, or pick another model.',
    );
  });

  it('keeps any other error to its first line and points to the log', () => {
    const error = new TypeError('cannot read properties of undefined\n    at RungSettings.read (/x/dist/extension.js:20017:13)');
    expect(shown(plainError(error))).toBe('Rung could not answer: cannot read properties of undefined. "Rung: Show Log" has the details.');
  });
});

describe('a call a spending limit kept from climbing', () => {
  const failed = {
    model: 'tiny-coder:1b',
    verdict: { kind: 'fail' as const, reason: 'JSON: Unexpected token S in JSON at position 0' },
  };

  it("names the local answer that failed and why, and what the paid model's attempt may have cost against the budget", () => {
    const crossing = {
      model: 'test/strong-model',
      reason:
        'pruned: daily budget $0.20 would be crossed: this attempt may cost up to $0.051 (18000 tokens in, at most 8192 out), $0.18 spent today',
    };
    expect(noAnswerText(failed, [crossing])).toBe(
      "Rung got no answer: tiny-coder:1b's answer failed its check (JSON: Unexpected token S in JSON at position 0). test/strong-model was not asked: it may cost up to $0.051 (18,000 tokens in, up to 8,192 out), which would take today's $0.18 past the budget of $0.20. Local models still answer; raise rung.dailyBudget to let it.",
    );
  });

  it('names the ceiling on one answer and its setting', () => {
    const ceiling = {
      model: 'test/strong-model',
      reason: 'pruned: answer ceiling $0.05 would be crossed: this attempt may cost up to $0.051 (18000 tokens in, at most 8192 out)',
    };
    expect(noAnswerText(failed, [ceiling])).toBe(
      "Rung got no answer: tiny-coder:1b's answer failed its check (JSON: Unexpected token S in JSON at position 0). test/strong-model was not asked: it may cost up to $0.051 (18,000 tokens in, up to 8,192 out), more than the $0.05 one answer may cost. Local models still answer; raise rung.maxAnswerCost to let it.",
    );
  });

  it('still says the day is spent when it is, after the failed answer', () => {
    expect(noAnswerText(failed, [BUDGET])).toMatch(
      /^Rung got no answer: tiny-coder:1b's answer failed its check \(JSON: .*\)\. Today's budget of \$1\.00 is spent/,
    );
  });
});

describe('a call no model answered', () => {
  it("names a strong model's refused connection from its last attempt", () => {
    const last = {
      model: 'test/strong-model',
      verdict: {
        kind: 'provider-error' as const,
        reason: 'acme: no server at http://127.0.0.1:9 (ECONNREFUSED)',
        failure: 'unavailable' as const,
      },
    };
    expect(noAnswerText(last, [NOT_ABOVE])).toBe(
      'Rung got no answer: acme is unreachable (connection refused at http://127.0.0.1:9). Try again once it is back, or pick another model.',
    );
  });

  it('says which check the last model failed', () => {
    const last = { model: 'tiny-coder:1b', verdict: { kind: 'fail' as const, reason: 'not valid JSON' } };
    expect(noAnswerText(last, [])).toBe(
      'Rung got no answer: tiny-coder:1b, the last model tried, ended failing its check (not valid JSON). Rephrase the request, or add a stronger model to the panel.',
    );
  });
});

describe('a provider that cannot answer', () => {
  it('is said in words for a refused connection, a missing host, a rest and anything else', () => {
    expect(providerDownText('acme', 'acme: no server at https://acme.example (ENOTFOUND)')).toBe(
      'acme is unreachable (host not found at https://acme.example)',
    );
    expect(providerDownText('acme', 'cooling down after 429 for 30000 ms')).toBe('acme is resting for 30 s: it said it is busy (429)');
    expect(providerDownText('acme', 'acme: no API key (set one with "Rung: Set Provider Key")')).toBe(
      'acme cannot answer now: no API key (set one with "Rung: Set Provider Key")',
    );
  });
});

function strongCandidate(slug: string): Candidate {
  return {
    slug,
    provider: 'acme',
    spec: { slug, provider: 'acme' },
    tier: 4,
    local: false,
    resolved: slug,
    ability: 0.8,
    graded: 0,
    ok: 0,
    measured: false,
    cost: 0.002,
    reason: 'no-measured-profiles tier4',
  };
}

describe('a retry with a stronger model', () => {
  const ranks = (pruned: { model: string; reason: string }[], candidates: string[] = []) => ({
    rank: () => ({ classKey: 'chat', candidates: candidates.map(strongCandidate), pruned }),
  });

  it('is refused in words when the budget is spent or the stronger provider is down, leaving out the climb itself', () => {
    expect(retryRefusal(ranks([NOT_ABOVE, BUDGET]), 'chat', 'tiny-coder:1b')).toBe(
      "test/strong-model: today's budget of $1.00 is spent ($1.02 so far)",
    );
    expect(retryRefusal(ranks([NOT_ABOVE, DOWN]), 'chat', 'tiny-coder:1b')).toBe(
      'test/strong-model: acme is unreachable (connection refused at http://127.0.0.1:9)',
    );
  });

  it('is not refused when a stronger model would take it, or when no session can say', () => {
    expect(retryRefusal(ranks([NOT_ABOVE], ['test/strong-model']), 'chat', 'tiny-coder:1b')).toBeUndefined();
    expect(retryRefusal(undefined, 'chat', 'tiny-coder:1b')).toBeUndefined();
  });
});
