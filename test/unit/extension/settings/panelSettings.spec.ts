import { describe, expect, it } from 'vitest';
import { PanelError } from '../../../../src/core/panel';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  composePanel,
  describePanelError,
  readOverrides,
  RESTRICTED_SETTINGS,
  userSettingsOnly,
  type PanelSources,
  type ScopedSettingsReader,
  type SettingsReader,
} from '../../../../src/extension/settings/panelSettings';

const models = [
  { slug: 'qwen3:14b', provider: 'ollama' },
  { slug: 'openai/gpt-4o-mini', provider: 'openrouter', price: { input: 0.15, output: 0.6 } },
];

function sources(overrides: Partial<PanelSources> = {}): PanelSources {
  return { inline: null, file: undefined, overrides: {}, endpoints: {}, ollamaHost: null, trusted: true, env: {}, ...overrides };
}

function failure(input: PanelSources): PanelError {
  try {
    composePanel(input);
  } catch (error) {
    if (error instanceof PanelError) return error;
    throw error;
  }
  throw new Error('the panel was accepted');
}

describe('composePanel', () => {
  it('says nothing is configured when there is neither an inline panel nor a file', () => {
    expect(composePanel(sources())).toBeUndefined();
  });

  it('prefers the inline panel to the file', () => {
    const composed = composePanel(
      sources({ inline: { models: [models[0]] }, file: { path: '/w/.rung/panel.json', text: JSON.stringify({ models }) } }),
    );
    expect(composed?.source).toBe('rung.panel');
    expect(composed?.panel.models.map((model) => model.slug)).toEqual(['qwen3:14b']);
  });

  it('reads the file when no inline panel is set, and names the file in its errors', () => {
    expect(composePanel(sources({ file: { path: '/w/.rung/panel.json', text: JSON.stringify({ models }) } }))?.source).toBe(
      '/w/.rung/panel.json',
    );
    const error = failure(sources({ file: { path: '/w/.rung/panel.json', text: '{"models": [' } }));
    expect(error.source).toBe('/w/.rung/panel.json');
    expect(error.issues[0]).toMatch(/^not valid JSON/);
  });

  it('says where in the file each mistake is, and says no place for a setting laid over it', () => {
    const text = '{\n  "models": [\n    { "slug": "qwen3:14b", "provider": "ollama", "contxt": 4096 }\n  ]\n}\n';
    expect(failure(sources({ file: { path: '/w/.rung/panel.json', text } })).issues).toEqual([
      'models[0]: unknown key "contxt"; did you mean "context"? (line 3 column 50)',
    ]);
    const overridden = failure(
      sources({ file: { path: '/w/.rung/panel.json', text: JSON.stringify({ models }) }, overrides: { explore: 3 } }),
    );
    expect(overridden.issues).toEqual(['rung.routing.explore: must be at most 1']);
  });

  it("says no place in an untrusted workspace's file once models on its own providers were left out, since their places moved", () => {
    const file = {
      models: [
        { slug: 'theirs-model', provider: 'theirs' },
        { slug: 'qwen3:14b', provider: 'ollama', role: 'bse' },
      ],
      providers: { theirs: { kind: 'openai-compatible', baseUrl: 'https://theirs.test/v1' } },
    };
    const error = failure(sources({ file: { path: '/w/.rung/panel.json', text: JSON.stringify(file, null, 2) }, trusted: false }));
    expect(error.issues).toEqual(['models[0].role: must be one of "base", "mid" or "top", not "bse"; did you mean "base"?']);
  });

  it('lays the individual settings over the panel', () => {
    const composed = composePanel(
      sources({
        inline: { models, routing: { explore: 0.2 } },
        overrides: {
          explore: 0,
          requireEvidence: true,
          tradeoff: 'economy',
          maxOutputPrice: 5,
          maxConsecutivePerProvider: 2,
          maxTotalPerProvider: null,
        },
      }),
    );
    expect(composed?.panel.routing).toEqual({ explore: 0, requireEvidence: true, tradeoff: 'economy', explorePaid: false });
    expect(composed?.panel.maxOutputPrice).toBe(5);
    expect(composed?.panel.diversity).toEqual({ maxConsecutivePerProvider: 2, maxTotalPerProvider: null });
  });

  it('blames a bad override on the setting the user typed, not on the panel path', () => {
    const error = failure(sources({ inline: { models }, overrides: { explore: 3 } }));
    expect(error.source).toBe('settings');
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]).toMatch(/^rung\.routing\.explore: /);
  });

  it('blames a bad value inside the panel on the panel, even when settings are set too', () => {
    const error = failure(sources({ inline: { models, routing: { explor: 1 } }, overrides: { explore: 0.1 } }));
    expect(error.source).toBe('rung.panel');
    expect(error.issues).toEqual(['routing: unknown key "explor"; did you mean "explore"?']);
  });

  it('turns rung.endpoints into OpenAI-compatible providers a model can name', () => {
    const composed = composePanel(
      sources({ inline: { models: [{ slug: 'local-model', provider: 'lmstudio' }] }, endpoints: { lmstudio: 'http://127.0.0.1:1234/v1' } }),
    );
    expect(composed?.panel.providers.lmstudio).toEqual({ kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:1234/v1' });
  });

  it('names an endpoint that is not a URL under rung.endpoints', () => {
    const error = failure(sources({ inline: { models }, endpoints: { lmstudio: 'localhost:1234' } }));
    expect(error.source).toBe('rung.endpoints');
    expect(error.issues).toEqual(['lmstudio: "localhost:1234" is not an http(s) URL']);
  });

  it('points the ollama provider at rung.ollamaHost, before OLLAMA_HOST', () => {
    const composed = composePanel(sources({ inline: { models }, ollamaHost: 'gpu-box:11500', env: { OLLAMA_HOST: 'elsewhere' } }));
    expect(composed?.panel.providers.ollama?.baseUrl).toBe('http://gpu-box:11500');
    expect(composePanel(sources({ inline: { models }, env: { OLLAMA_HOST: 'elsewhere' } }))?.panel.providers.ollama?.baseUrl).toBe(
      'http://elsewhere:11434',
    );
  });

  it('ignores the providers an untrusted workspace file declares, and the models on them', () => {
    const file = {
      models: [...models, { slug: 'their-model', provider: 'theirs' }],
      providers: {
        openrouter: { kind: 'openai-compatible', baseUrl: 'http://attacker.example/v1' },
        theirs: { kind: 'openai-compatible', baseUrl: 'http://attacker.example/v1' },
      },
    };
    const composed = composePanel(sources({ file: { path: 'panel.json', text: JSON.stringify(file) }, trusted: false }));
    expect(composed?.panel.providers.openrouter?.baseUrl).toBe('https://openrouter.ai/api/v1');
    expect(composed?.panel.providers.theirs).toBeUndefined();
    expect(composed?.panel.models.map((model) => model.slug)).toEqual(['qwen3:14b', 'openai/gpt-4o-mini']);
    expect(composed?.notes[0]).toMatch(/untrusted workspace: its providers \(openrouter, theirs\) are ignored, and 1 model/);
  });

  it("keeps a trusted workspace file's providers", () => {
    const file = {
      models: [{ slug: 'm', provider: 'theirs' }],
      providers: { theirs: { kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1' } },
    };
    expect(composePanel(sources({ file: { path: 'panel.json', text: JSON.stringify(file) } }))?.panel.providers.theirs?.baseUrl).toBe(
      'http://127.0.0.1:9/v1',
    );
  });

  it('lets exploration open on paid models only when rung.routing.explorePaid says so', () => {
    expect(composePanel(sources({ inline: { models } }))?.panel.routing.explorePaid).toBe(false);
    expect(composePanel(sources({ inline: { models }, overrides: { explorePaid: true } }))?.panel.routing.explorePaid).toBe(true);
  });

  it("lets rung.routing.explorePaid set to false turn off a panel's paid exploration", () => {
    // What the editor's settings return: the user's value where set, the caller's default elsewhere.
    const settings = (values: Record<string, unknown>): SettingsReader => ({
      get: <T>(section: string, fallback: T): T => (section in values ? (values[section] as T) : fallback),
    });
    const panel = { models, routing: { explorePaid: true } };
    const off = composePanel(sources({ inline: panel, overrides: readOverrides(settings({ 'routing.explorePaid': false })) }));
    expect(off?.panel.routing.explorePaid).toBe(false);
    // Not set: the panel's value stands.
    expect(composePanel(sources({ inline: panel, overrides: readOverrides(settings({})) }))?.panel.routing.explorePaid).toBe(true);
  });
});

describe('describePanelError', () => {
  const broken = new PanelError('/w/.rung/panel.json', ['models[1]: unknown key "contextWindow"']);

  it("ends the log's warning with a full stop before saying which panel Rung keeps", () => {
    // It read '... unknown key "contextWindow" Rung keeps using the last good panel (...)'.
    const said = describePanelError(broken, 'the models of the local Ollama at http://127.0.0.1:11434');
    expect(said.log).toBe(
      '/w/.rung/panel.json: invalid panel\n  - models[1]: unknown key "contextWindow". Rung keeps using the last good panel (the models of the local Ollama at http://127.0.0.1:11434).',
    );
    expect(said.toast).toBe(
      'Rung: /w/.rung/panel.json is invalid: models[1]: unknown key "contextWindow". Rung keeps using the last good panel (the models of the local Ollama at http://127.0.0.1:11434).',
    );
  });

  it('says nothing of a last good panel when there is none, and doubles no full stop', () => {
    const said = describePanelError(
      new PanelError('rung.panel', ['models: must be a non-empty array', 'routing.explore: must be between 0 and 1.']),
      undefined,
    );
    expect(said.log).toBe(
      'rung.panel: invalid panel\n  - models: must be a non-empty array\n  - routing.explore: must be between 0 and 1.',
    );
    expect(said.toast).toBe('Rung: rung.panel is invalid: models: must be a non-empty array; routing.explore: must be between 0 and 1.');
  });

  it("says the file's last good version is kept, rather than naming the invalid file as the good panel", () => {
    const said = describePanelError(broken, '/w/.rung/panel.json');
    expect(said.toast).toBe(
      'Rung: /w/.rung/panel.json is invalid: models[1]: unknown key "contextWindow". Rung keeps using its last good version.',
    );
  });
});

describe('what an untrusted workspace may not decide about money', () => {
  const file = {
    models: [
      { slug: 'qwen3:14b', provider: 'ollama', role: 'base', context: 32768 },
      { slug: 'openai/gpt-4o', provider: 'openrouter', role: 'top', price: { input: 0, output: 0 } },
    ],
    maxOutputPrice: 1000,
    diversity: { maxTotalPerProvider: 1 },
    profiles: { edit: { maxConsecutivePerProvider: 1 } },
    routing: { explorePaid: true, attemptTimeoutSeconds: 86_400, explore: 1 },
  };
  const path = '/w/.rung/panel.json';

  it('takes the models of an untrusted panel file without their prices, and none of its caps or routing, and says so', () => {
    const composed = composePanel(
      sources({ file: { path, text: JSON.stringify(file) }, trusted: false, overrides: { maxOutputPrice: 20 } }),
    );
    expect(composed?.panel.models).toEqual([
      { slug: 'qwen3:14b', provider: 'ollama', role: 'base', context: 32768 },
      { slug: 'openai/gpt-4o', provider: 'openrouter', role: 'top' },
    ]);
    expect(composed?.panel.maxOutputPrice).toBe(20);
    expect(composed?.panel.diversity).toEqual({ maxConsecutivePerProvider: null, maxTotalPerProvider: null });
    expect(composed?.panel.profiles).toEqual({});
    expect(composed?.panel.routing).toEqual({ explore: 0.05, requireEvidence: false, tradeoff: 'quality', explorePaid: false });
    expect(composed?.notes).toEqual([
      "untrusted workspace: the panel file's models are used, but not the price of openai/gpt-4o, maxOutputPrice, diversity, profiles and routing: prices come from the providers' catalogs, and the price cap, the daily budget, routing and diversity from your own settings",
    ]);
  });

  it('keeps every price and cap of the same file in a trusted workspace', () => {
    const composed = composePanel(sources({ file: { path, text: JSON.stringify(file) } }));
    expect(composed?.panel.models[1]?.price).toEqual({ input: 0, output: 0 });
    expect(composed?.panel.maxOutputPrice).toBe(1000);
    expect(composed?.notes).toEqual([]);
  });
});

/** Settings by scope, as `vscode.WorkspaceConfiguration` reads them: the workspace's value wins where it has one. */
class ScopedSettings implements ScopedSettingsReader {
  constructor(
    private readonly user: Record<string, unknown>,
    private readonly workspace: Record<string, unknown>,
  ) {}
  get<T>(section: string, defaultValue: T): T {
    return (this.workspace[section] ?? this.user[section] ?? defaultValue) as T;
  }
  inspect<T>(section: string): { globalValue?: T } {
    return this.user[section] === undefined ? {} : { globalValue: this.user[section] as T };
  }
}

describe('userSettingsOnly', () => {
  const config = new ScopedSettings(
    { maxOutputPrice: 20 },
    {
      maxOutputPrice: 1000,
      dailyBudget: 100_000,
      maxAnswerCost: 100_000,
      'routing.attemptTimeoutSeconds': 86_400,
      'routing.explorePaid': true,
      // A wait worth far past any wage sends every call to the fastest model, paid or not.
      'routing.waitWorth': 1000,
      'diversity.maxTotalPerProvider': 1,
      'chat.anything': 'theirs',
    },
  );

  it("reads the budget, the price cap, routing and diversity from the user's settings only in an untrusted workspace", () => {
    const untrusted = userSettingsOnly(config, false);
    expect(untrusted.get<number | null>('dailyBudget', null)).toBeNull();
    expect(untrusted.get<number | null>('maxAnswerCost', null)).toBeNull();
    expect(readOverrides(untrusted)).toEqual({
      explore: null,
      explorePaid: null,
      requireEvidence: null,
      tradeoff: null,
      attemptTimeoutSeconds: null,
      waitWorth: null,
      maxOutputPrice: 20,
      maxConsecutivePerProvider: null,
      maxTotalPerProvider: null,
    });
    expect(untrusted.get('chat.anything', null)).toBe('theirs');
  });

  it("reads the workspace's values in a trusted workspace", () => {
    const trusted = userSettingsOnly(config, true);
    expect(trusted.get('dailyBudget', null)).toBe(100_000);
    expect(trusted.get('maxAnswerCost', null)).toBe(100_000);
    expect(readOverrides(trusted).maxOutputPrice).toBe(1000);
  });

  it('restricts in code exactly the settings package.json restricts for VS Code', () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, '../../../../package.json'), 'utf8')) as {
      capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
    };
    expect([...RESTRICTED_SETTINGS].sort()).toEqual([...manifest.capabilities.untrustedWorkspaces.restrictedConfigurations].sort());
  });
});
