import { afterEach, describe, expect, it } from 'vitest';
import { parsePanel } from '../../../../src/core/panel';
import type { ProviderConnection } from '../../../../src/core/session/connectProviders';
import { RungSession } from '../../../../src/core/session/session';
import type { SessionChange } from '../../../../src/core/session/types';
import { FixedClock } from '../../support/FixedClock';
import { MockProvider } from '../../support/MockProvider';

const sessions: RungSession[] = [];
afterEach(async () => {
  for (const session of sessions.splice(0)) await session.dispose();
});

/** A local server whose probe answers as `up` says, and a cloud provider whose catalog prices its model. */
async function open(up: { value: boolean }): Promise<RungSession> {
  const panel = parsePanel(
    {
      models: [
        { slug: 'small', provider: 'local', role: 'base' },
        { slug: 'cloud/model', provider: 'cloud', role: 'top' },
      ],
      routing: { explore: 0 },
      providers: {
        local: { kind: 'ollama', baseUrl: 'http://127.0.0.1:11434' },
        cloud: { kind: 'openai-compatible', baseUrl: 'https://cloud.example/v1' },
      },
    },
    'a local and a catalog-priced model',
  );
  const local: ProviderConnection = {
    adapter: new MockProvider('local').on('small', 'hi'),
    probe: async () => (up.value ? { ok: true } : { ok: false, reason: 'no server at http://127.0.0.1:11434 (ECONNREFUSED)' }),
  };
  const cloud: ProviderConnection = {
    adapter: new MockProvider('cloud').on('cloud/model', 'hello'),
    facts: [{ slug: 'cloud/model', price: { input: 2.5, output: 10 } }],
  };
  const session = await RungSession.open({
    panel,
    clock: new FixedClock(),
    keys: async () => 'key',
    providerFactories: { ollama: () => local, 'openai-compatible': () => cloud },
  });
  sessions.push(session);
  return session;
}

describe('what the session tells the editor about its models', () => {
  it("gives each model's price as the router uses it: the catalog's where the panel has none, 0 for a local one", async () => {
    const session = await open({ value: true });
    expect(session.snapshot({ limit: 0 }).prices).toEqual([
      { model: 'small', input: 0, output: 0, from: 'local' },
      { model: 'cloud/model', input: 2.5, output: 10, from: 'catalog' },
    ]);
  });

  it('ranks above a model, so a front end can tell whether a retry would be routed', async () => {
    const session = await open({ value: true });
    expect(session.rank({ classKey: 'chat', above: 'small' }).candidates.map((candidate) => candidate.slug)).toEqual(['cloud/model']);
    expect(session.rank({ classKey: 'chat', above: 'cloud/model' }).candidates).toEqual([]);
  });

  it('finds a local server that stopped when asked to check, and tells its listeners', async () => {
    const up = { value: true };
    const session = await open(up);
    const changes: SessionChange[] = [];
    session.onChange((change) => changes.push(change));
    up.value = false;
    await session.checkProviders();
    expect(changes).toContainEqual({
      type: 'provider-health',
      provider: 'local',
      healthy: false,
      reason: 'no server at http://127.0.0.1:11434 (ECONNREFUSED)',
    });
    expect(session.snapshot({ limit: 0 }).providers.find((provider) => provider.name === 'local')?.healthy).toBe(false);
  });
});
