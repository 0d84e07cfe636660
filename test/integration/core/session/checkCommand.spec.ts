import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parsePanel } from '../../../../src/core/panel';
import { RungSession } from '../../../../src/core/session/session';
import { FixedClock } from '../../../unit/support/FixedClock';
import { makeTempDir } from '../../../unit/support/tempDir';
import { fixture, json, replay, WireServer } from '../../../unit/support/wireServer';

// A session call whose check is a workspace command, which runs as a process of its own; the rest of
// the session's behaviour is in test/unit/core/session/session.spec.ts, with the same two local servers.
const KEY = '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';

let dir: ReturnType<typeof makeTempDir>;
const servers: WireServer[] = [];

beforeEach(() => {
  dir = makeTempDir('rung-session-');
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  dir.remove();
});

describe('RungSession.chat with a check command', () => {
  it("scrubs the team ledger's password from a check command's output, the verdict and the decision row", async () => {
    const password = 'team-ledger-pw-42';
    const fix = 'Fixed:\n\n```ts title="src/add.ts"\nexport const add = (a: number, b: number) => a + b;\n```\n';
    const says = replay(
      [
        { model: 'qwen2.5:3b', message: { role: 'assistant', content: fix }, done: false },
        {
          model: 'qwen2.5:3b',
          message: { role: 'assistant', content: '' },
          done: true,
          done_reason: 'stop',
          prompt_eval_count: 5,
          eval_count: 9,
        },
      ]
        .map((line) => `${JSON.stringify(line)}\n`)
        .join(''),
    );
    const ollama = new WireServer().on('GET', '/api/tags', json(JSON.parse(fixture('ollama/tags.json')))).on('POST', '/api/chat', says);
    const cloud = new WireServer()
      .on('POST', '/api/v1/chat/completions', replay(fixture('openai/chat-normal.sse'), { contentType: 'text/event-stream' }))
      .on('GET', '/api/v1/models', json(JSON.parse(fixture('openai/models-openrouter.json'))));
    servers.push(ollama, cloud);
    const [ollamaUrl, cloudUrl] = await Promise.all([ollama.start(), cloud.start()]);
    const workspace = join(dir.path, 'workspace');
    mkdirSync(workspace);
    // The password in a file of the workspace, which the command prints (a .env, a config someone committed).
    writeFileSync(join(workspace, 'db.conf'), `password=${password}\n`);
    const panel = parsePanel(
      {
        models: [
          { slug: 'qwen2.5:3b', provider: 'ollama', role: 'base' },
          { slug: 'openai/gpt-4o-mini', provider: 'openrouter', role: 'top' },
        ],
        routing: { explore: 0 },
        providers: {
          ollama: { kind: 'ollama', baseUrl: ollamaUrl },
          openrouter: { kind: 'openai-compatible', baseUrl: `${cloudUrl}/api/v1`, key: 'required' },
        },
      },
      'session panel',
    );
    const session = await RungSession.open({
      clock: new FixedClock(),
      keys: async (provider) => (provider === 'openrouter' ? KEY : undefined),
      store: { kind: 'file', path: join(dir.path, '.rung', 'ledger.sqlite') },
      panel,
      secrets: [password],
    });
    const result = await session.chat({
      messages: [{ role: 'user', content: 'Fix add' }],
      classKey: 'chat',
      checks: { command: { command: 'cat db.conf; exit 1', cwd: workspace } },
    });
    const reason = result.attempts[0]?.verdict.reason ?? '';
    expect(reason).toContain('password=[redacted]');
    await session.dispose();
    expect(JSON.stringify(result)).not.toContain(password);
    expect(readFileSync(join(dir.path, '.rung', 'decisions.jsonl'), 'utf8')).not.toContain(password);
  });
});
