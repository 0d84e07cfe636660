/**
 * The `rung` command run in-process against a team ledger, and a workspace whose `rung chat` escalates
 * from a local Ollama-protocol server to an OpenAI-compatible one, for the team ledger's CLI specs.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeTwoRungPanel } from '../../unit/support/twoRungPanel';
import { main } from '../../../src/cli/main';
import { CapturedIo } from '../../unit/support/CapturedIo';
import { fixture, json, replay, WireServer } from '../../unit/support/wireServer';

export async function cli(
  argv: string[],
  cwd: string,
  env: Record<string, string | undefined> = {},
): Promise<{ code: number; out: string; err: string }> {
  const io = new CapturedIo(cwd, env);
  const code = await main(argv, io);
  return { code, out: io.out, err: io.err };
}

/** The arguments after `rung chat` that ask the escalating panel for a checked answer (add `--ledger …`). */
export const CHAT_ARGS = ['--panel', 'panel.json', '--schema', 'city.schema.json'];

/**
 * Writes `panel.json` and `city.schema.json` into `folder`, over a local model that answers prose where
 * JSON was asked (so its check fails) and a cloud model that answers properly; `close` stops both servers.
 */
export async function escalatingChatWorkspace(folder: string): Promise<{ close(): Promise<void> }> {
  const ollama = new WireServer()
    .on('GET', '/api/tags', json(JSON.parse(fixture('ollama/tags.json'))))
    .on('POST', '/api/chat', replay(fixture('ollama/chat-prose-instead-of-json.ndjson')));
  const cloud = new WireServer()
    .on('POST', '/api/v1/chat/completions', replay(fixture('openai/chat-normal.sse'), { contentType: 'text/event-stream' }))
    .on('GET', '/api/v1/models', json(JSON.parse(fixture('openai/models-openrouter.json'))));
  const close = async (): Promise<void> => void (await Promise.all([ollama.close(), cloud.close()]));
  try {
    const [ollamaUrl, cloudUrl] = await Promise.all([ollama.start(), cloud.start()]);
    writeTwoRungPanel(folder, ollamaUrl, cloudUrl);
    writeFileSync(join(folder, 'city.schema.json'), JSON.stringify({ type: 'object', required: ['city', 'population'] }));
  } catch (error) {
    await close();
    throw error;
  }
  return { close };
}
