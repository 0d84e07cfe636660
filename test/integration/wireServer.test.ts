import assert from 'node:assert/strict';
import { after, before, describe, it } from 'mocha';
import { fixture, replay, WireServer } from '../unit/support/wireServer';

describe('wire servers in the extension host', () => {
  const ollama = new WireServer().on('POST', '/api/chat', replay(fixture('ollama/chat-normal.ndjson')));
  let baseUrl = '';

  before(async () => {
    baseUrl = await ollama.start();
  });

  after(() => ollama.close());

  it('serves a recorded Ollama stream to code running beside the extension', async () => {
    const response = await fetch(`${baseUrl}/api/chat`, { method: 'POST', body: JSON.stringify({ model: 'qwen3:14b', messages: [] }) });
    const lines = (await response.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { done?: boolean });
    assert.equal(response.headers.get('content-type'), 'application/x-ndjson');
    assert.equal(lines.at(-1)?.done, true);
    assert.equal(ollama.requests.length, 1);
  });
});
