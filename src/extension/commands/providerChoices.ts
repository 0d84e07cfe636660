/**
 * The providers Set Provider Key offers, the panel's own first.
 *
 * @remarks
 * The list opened with openrouter and openai whatever the panel held, so a user whose panel used a
 * provider of their own (`cloud`, an OpenAI-compatible server) found it last, below two the panel never
 * called. Now the providers a panel model uses come first, each saying which models use it, then the
 * other OpenAI-compatible providers the panel declares, then the two built-in names.
 *
 * No vscode here, so the order is unit-tested.
 */
import type { Panel } from '../../core/panel';

/** One provider on the list: its name and what uses it. */
export interface ProviderChoice {
  name: string;
  /** `used by tiny-coder:1b, test/strong-model`, or that no panel model uses it. */
  description: string;
}

/** The built-in providers that take a key, offered even when the panel names neither. */
const BUILT_IN = ['openrouter', 'openai'];

/** Whether a provider takes a key: an OpenAI-compatible one, declared or built in. */
function takesKey(panel: Panel | undefined, name: string): boolean {
  const config = panel?.providers[name];
  return config ? config.kind === 'openai-compatible' : BUILT_IN.includes(name);
}

export function providerKeyChoices(panel: Panel | undefined): ProviderChoice[] {
  const users = new Map<string, string[]>();
  for (const model of panel?.models ?? []) {
    if (!takesKey(panel, model.provider)) continue;
    users.set(model.provider, [...(users.get(model.provider) ?? []), model.slug]);
  }
  const declared = Object.keys(panel?.providers ?? {}).filter((name) => takesKey(panel, name));
  const names = [...new Set([...users.keys(), ...declared, ...BUILT_IN])];
  return names.map((name) => {
    const models = users.get(name);
    return { name, description: models ? `used by ${models.join(', ')}` : 'no model on the panel uses it' };
  });
}
