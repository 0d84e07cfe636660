import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  apiKeyVariable,
  attemptTimeoutMs,
  capsFor,
  DEFAULT_ATTEMPT_TIMEOUT_SECONDS,
  defaultProviders,
  parsePanel,
  parsePanelText,
  PanelError,
} from '../../../src/core/panel';

const minimal = { models: [{ slug: 'qwen3:14b', provider: 'ollama' }] };

function issuesOf(json: unknown): string[] {
  try {
    parsePanel(json, 'panel.json');
  } catch (error) {
    if (error instanceof PanelError) return error.issues;
    throw error;
  }
  throw new Error('the panel was accepted');
}

describe('parsePanel', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('names an unknown top-level key and the known one it is closest to', () => {
    expect(issuesOf({ ...minimal, maxOutputPrise: 20 })).toEqual([
      '(top level): unknown key "maxOutputPrise"; did you mean "maxOutputPrice"?',
    ]);
  });

  it('names an unknown key nested in a model with its path', () => {
    const issues = issuesOf({ models: [{ slug: 'a', provider: 'ollama', contxt: 4096 }] });
    expect(issues).toEqual(['models[0]: unknown key "contxt"; did you mean "context"?']);
  });

  it('names an unknown key nested in the routing block, and lists the keys there when the one it is closest to is written beside it', () => {
    expect(issuesOf({ ...minimal, routing: { explore: 0, explor: 1 } })).toEqual([
      'routing: unknown key "explor" (the keys here: explore, requireEvidence, tradeoff, explorePaid, exploreMeasured, attemptTimeoutSeconds, promptSignal, waitWorth)',
    ]);
  });

  it('names the field path of a value of the wrong type', () => {
    const issues = issuesOf({
      models: [
        { slug: 'a', provider: 'ollama' },
        { slug: 'b', provider: 'ollama', price: { input: 1, output: 'cheap' } },
      ],
    });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatch(/^models\[1\]\.price\.output: /);
  });

  it('names a diversity cap of the wrong type by its path', () => {
    const issues = issuesOf({ ...minimal, diversity: { maxTotalPerProvider: 'two' } });
    expect(issues[0]).toMatch(/^diversity\.maxTotalPerProvider: /);
  });

  it('rejects a slug listed twice, naming the second listing', () => {
    const issues = issuesOf({
      models: [
        { slug: 'a', provider: 'ollama' },
        { slug: 'a', provider: 'openrouter' },
      ],
    });
    expect(issues).toEqual(['models[1].slug: "a" is listed twice']);
  });

  it('rejects a model whose provider is neither declared nor a default', () => {
    const issues = issuesOf({ models: [{ slug: 'a', provider: 'acme' }] });
    expect(issues).toEqual(['models[0].provider: unknown provider "acme" (declare it under "providers")']);
  });

  it('refuses a provider key that is neither "required" nor "none" without repeating what was written', () => {
    const secret = 'sk-proj-0123456789abcdefghij';
    const error = (() => {
      try {
        parsePanel(
          {
            models: [{ slug: 'a', provider: 'acme' }],
            providers: { acme: { kind: 'openai-compatible', baseUrl: 'https://acme.test/v1', key: secret } },
          },
          'p',
        );
      } catch (caught) {
        return caught as PanelError;
      }
      throw new Error('the panel was accepted');
    })();
    expect(error.issues).toEqual([
      'providers.acme.key: must be "required" or "none"; the key itself never goes in the panel (Rung: Set Provider Key, or RUNG_<PROVIDER>_API_KEY for the CLI)',
    ]);
    expect(error.message).not.toContain(secret);
  });

  it("keeps a provider's key setting", () => {
    const panel = parsePanel(
      {
        models: [{ slug: 'a', provider: 'lan' }],
        providers: { lan: { kind: 'openai-compatible', baseUrl: 'http://10.0.0.5:8000/v1', key: 'none' } },
      },
      'p',
    );
    expect(panel.providers.lan).toEqual({ kind: 'openai-compatible', baseUrl: 'http://10.0.0.5:8000/v1', key: 'none' });
  });

  it('accepts a provider declared under providers', () => {
    const panel = parsePanel(
      { models: [{ slug: 'a', provider: 'acme' }], providers: { acme: { kind: 'openai-compatible', baseUrl: 'https://acme.test/v1' } } },
      'p',
    );
    expect(panel.providers.acme).toEqual({ kind: 'openai-compatible', baseUrl: 'https://acme.test/v1' });
  });

  it('keeps null caps null, never 0, globally and per profile', () => {
    const panel = parsePanel(
      {
        ...minimal,
        diversity: { maxConsecutivePerProvider: null, maxTotalPerProvider: null },
        profiles: { plan: { maxTotalPerProvider: null } },
      },
      'p',
    );
    expect(panel.diversity).toEqual({ maxConsecutivePerProvider: null, maxTotalPerProvider: null });
    expect(panel.profiles.plan?.maxTotalPerProvider).toBeNull();
    expect(capsFor(panel, 'plan')).toEqual({ maxConsecutivePerProvider: null, maxTotalPerProvider: null });
  });

  it('rejects a cap of 0 instead of reading it as unbounded', () => {
    expect(issuesOf({ ...minimal, diversity: { maxTotalPerProvider: 0 } })[0]).toMatch(/^diversity\.maxTotalPerProvider: /);
  });

  it('fills every default when the panel names only its models', () => {
    vi.stubEnv('OLLAMA_HOST', '');
    const panel = parsePanel(minimal, 'p');
    expect(panel.maxOutputPrice).toBeNull();
    expect(panel.diversity).toEqual({ maxConsecutivePerProvider: null, maxTotalPerProvider: null });
    expect(panel.profiles).toEqual({});
    expect(panel.routing).toEqual({ explore: 0.05, requireEvidence: false, tradeoff: 'quality', explorePaid: false });
    expect(panel.providers).toEqual({
      ollama: { kind: 'ollama', baseUrl: 'http://127.0.0.1:11434' },
      openrouter: { kind: 'openai-compatible', baseUrl: 'https://openrouter.ai/api/v1' },
      openai: { kind: 'openai-compatible', baseUrl: 'https://api.openai.com/v1' },
    });
  });

  it('lets a per-class profile value beat the global default and a shaped key fall back to its class', () => {
    const panel = parsePanel({ ...minimal, diversity: { maxTotalPerProvider: 5 }, profiles: { plan: { maxTotalPerProvider: 2 } } }, 'p');
    expect(capsFor(panel, 'plan').maxTotalPerProvider).toBe(2);
    expect(capsFor(panel, 'plan/json').maxTotalPerProvider).toBe(2);
    expect(capsFor(panel, 'chat').maxTotalPerProvider).toBe(5);
  });

  it('honours OLLAMA_HOST for the default ollama provider, from the environment the caller gives', () => {
    expect(parsePanel(minimal, 'p', { OLLAMA_HOST: 'gpu-box:9999' }).providers.ollama).toEqual({
      kind: 'ollama',
      baseUrl: 'http://gpu-box:9999',
    });
    vi.stubEnv('OLLAMA_HOST', 'elsewhere:1');
    expect(parsePanel(minimal, 'p').providers.ollama).toEqual({ kind: 'ollama', baseUrl: 'http://127.0.0.1:11434' });
  });

  it('names OLLAMA_HOST when it is not a host', () => {
    expect(() => parsePanel(minimal, 'p', { OLLAMA_HOST: 'http://[not a host' })).toThrow(
      /OLLAMA_HOST: invalid panel\n {2}- "http:\/\/\[not a host" is not a host/,
    );
  });

  it('adds the default port to an OLLAMA_HOST without one and keeps an explicit scheme', () => {
    expect(defaultProviders({ OLLAMA_HOST: 'gpu-box' }).ollama?.baseUrl).toBe('http://gpu-box:11434');
    expect(defaultProviders({ OLLAMA_HOST: 'https://ollama.example:8443' }).ollama?.baseUrl).toBe('https://ollama.example:8443');
  });

  it('reports text that is not JSON as one issue', () => {
    expect(() => parsePanelText('{ "models": [', 'panel.json')).toThrow(/panel\.json: invalid panel\n {2}- not valid JSON/);
  });

  it('says on which line of the panel file the JSON breaks', () => {
    const text = JSON.stringify({ models: [] }, null, 2).replace('[]', '[],');
    expect(() => parsePanelText(text, 'panel.json')).toThrow(/not valid JSON: .*line 3 column 1\b/);
  });

  it('reads a panel file saved with a byte-order mark', () => {
    expect(parsePanelText(`\ufeff${JSON.stringify(minimal)}`, 'panel.json').models).toHaveLength(minimal.models.length);
  });
});

describe('parsePanel: the time an attempt may take', () => {
  it('keeps routing.attemptTimeoutSeconds when given and leaves it to the default when not', () => {
    expect(parsePanel({ ...minimal, routing: { attemptTimeoutSeconds: 90 } }, 'p').routing.attemptTimeoutSeconds).toBe(90);
    expect(attemptTimeoutMs(parsePanel({ ...minimal, routing: { attemptTimeoutSeconds: 90 } }, 'p'))).toBe(90_000);
    expect(attemptTimeoutMs(parsePanel(minimal, 'p'))).toBe(DEFAULT_ATTEMPT_TIMEOUT_SECONDS * 1000);
  });

  it('refuses an attempt timeout of zero, below it, or over a day, naming the field', () => {
    for (const seconds of [0, -5, 86_401])
      expect(issuesOf({ ...minimal, routing: { attemptTimeoutSeconds: seconds } })[0]).toMatch(/^routing\.attemptTimeoutSeconds: /);
  });
});

describe('parsePanel on hostile names and addresses', () => {
  it('refuses a slug that a shell would run, or that holds a newline or a control character, naming it', () => {
    for (const [slug, character] of [
      ['$(touch X)', '$'],
      ['qwen3:14b\nrm -rf ~', '\n'],
      ['a\u001b]52;c;bad\u0007', '\u001b'],
      ['gpt 4o', ' '],
      ['`id`', '`'],
    ]) {
      expect(issuesOf({ models: [{ slug, provider: 'ollama' }] })).toEqual([
        `models[0].slug: ${JSON.stringify(slug)} has a character no model name has (${JSON.stringify(character)}); a slug holds letters, digits and . _ : / @ + ~ -`,
      ]);
    }
  });

  it('refuses a slug longer than a record keeps a model name, saying how long it is', () => {
    const slug = `org/${'a'.repeat(300)}`;
    expect(issuesOf({ models: [{ slug, provider: 'ollama' }] })).toEqual([
      `models[0].slug: is 304 characters long; a model's name may be at most 200 (the longest real ones are under 80)`,
    ]);
  });

  it('accepts the slugs real providers use', () => {
    const slugs = [
      'qwen2.5:3b',
      'openai/gpt-4o-mini',
      '~anthropic/claude-latest',
      'hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M',
      'deepseek/deepseek-r1-distill-qwen-32b:free',
      'Qwen/Qwen2.5-7B-Instruct',
      '/models/qwen2.5-7b-instruct-q4_k_m.gguf',
      'anthropic.claude-3-5-sonnet-20240620-v1:0',
      'user@example/model+v2',
    ];
    const panel = parsePanel({ models: slugs.map((slug) => ({ slug, provider: 'ollama' })) }, 'p');
    expect(panel.models.map((model) => model.slug)).toEqual(slugs);
  });

  it('refuses constructor, __proto__ and prototype as provider names, declared or not', () => {
    expect(issuesOf({ models: [{ slug: 'a', provider: 'constructor' }] })).toEqual([
      'models[0].provider: "constructor" is a name every JavaScript object already has; choose another provider name',
    ]);
    expect(issuesOf({ models: [{ slug: 'a', provider: 'toString' }] })).toEqual([
      'models[0].provider: "toString" is a name every JavaScript object already has; choose another provider name',
    ]);
    const declared = JSON.parse(
      '{"models": [{"slug": "a", "provider": "__proto__"}], "providers": {"__proto__": {"kind": "ollama", "baseUrl": "http://127.0.0.1:11434"}, "prototype": {"kind": "ollama"}}}',
    );
    expect(issuesOf(declared)).toEqual([
      'providers: "__proto__" is a name every JavaScript object already has; choose another provider name',
      'providers: "prototype" is a name every JavaScript object already has; choose another provider name',
      'models[0].provider: "__proto__" is a name every JavaScript object already has; choose another provider name',
    ]);
  });

  it('refuses a provider name that is not a plain name, since it becomes part of a variable and a file name', () => {
    const message = (name: string) =>
      `${JSON.stringify(name)} is not a provider name Rung accepts: use letters, digits, - and _, starting with a letter or digit (the name becomes part of RUNG_<PROVIDER>_API_KEY and of a file name)`;
    expect(
      issuesOf({ models: [{ slug: 'a', provider: '../x' }], providers: { '../x': { kind: 'ollama', baseUrl: 'http://127.0.0.1:11434' } } }),
    ).toEqual([`providers: ${message('../x')}`, `models[0].provider: ${message('../x')}`]);
    expect(issuesOf({ models: [{ slug: 'a', provider: 'my lab' }] })).toEqual([`models[0].provider: ${message('my lab')}`]);
    expect(
      parsePanel(
        { models: [{ slug: 'a', provider: 'my-lab_2' }], providers: { 'my-lab_2': { kind: 'ollama', baseUrl: 'http://127.0.0.1:1' } } },
        'p',
      ).models,
    ).toHaveLength(1);
  });

  it('refuses a baseUrl that is not http: or https:, naming its scheme', () => {
    for (const [baseUrl, scheme] of [
      ['file:///etc/passwd', 'file:'],
      ['javascript:alert(1)', 'javascript:'],
      ['data:text/plain,hello', 'data:'],
      ['ftp://example.com/v1', 'ftp:'],
    ]) {
      expect(issuesOf({ models: [{ slug: 'a', provider: 'acme' }], providers: { acme: { kind: 'openai-compatible', baseUrl } } })).toEqual([
        `providers.acme.baseUrl: must be an http: or https: URL, not "${scheme}": a model API is reached over HTTP`,
      ]);
    }
  });
});

describe('apiKeyVariable', () => {
  it('upper-cases the provider name and turns dashes into underscores', () => {
    expect(apiKeyVariable('open-router')).toBe('RUNG_OPEN_ROUTER_API_KEY');
    expect(apiKeyVariable('openai')).toBe('RUNG_OPENAI_API_KEY');
  });
});
