import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CommandVerifier } from '../../../../src/core/verifiers/commandVerifier';

const answer = { text: 'done', toolCalls: [], model: 'qwen3:14b' };
const node = JSON.stringify(process.execPath);
let workspace: string;

beforeEach(() => {
  workspace = mkdtempSync(join(tmpdir(), 'rung-verify-'));
});

afterEach(() => {
  rmSync(workspace, { recursive: true, force: true });
});

describe('CommandVerifier', () => {
  it('passes when the command exits 0, run in the workspace', async () => {
    writeFileSync(join(workspace, 'marker.txt'), 'here');
    const command = `${node} -e "require('fs').accessSync('marker.txt')"`;
    expect(await new CommandVerifier({ command, cwd: workspace }).verify(answer)).toEqual({ verdict: 'pass', reason: `\`${command}\` exited 0` });
  });

  it('fails with the tail of the output when the command exits nonzero', async () => {
    const script = "for (let i = 0; i < 500; i++) console.log('line ' + i); console.error('FAIL test/add.spec.ts'); process.exit(3)";
    const command = `${node} -e "${script}"`;
    const check = await new CommandVerifier({ command, cwd: workspace }).verify(answer);
    expect(check.verdict).toBe('fail');
    expect(check.reason).toMatch(/exited 3:\n/);
    expect(check.reason).toMatch(/FAIL test\/add\.spec\.ts$/);
    expect(check.reason).not.toContain('line 0\n');
  });

  it('calls a command that runs out of time unverified', async () => {
    const command = `${node} -e "setTimeout(() => {}, 60000)"`;
    const check = await new CommandVerifier({ command, cwd: workspace, timeoutMs: 100 }).verify(answer);
    expect(check).toEqual({ verdict: 'unverified', reason: `\`${command}\` timed out after 100 ms` });
  });

  it('calls a command the user stopped unverified', async () => {
    const controller = new AbortController();
    const command = `${node} -e "setTimeout(() => {}, 60000)"`;
    const pending = new CommandVerifier({ command, cwd: workspace }).verify(answer, controller.signal);
    setTimeout(() => controller.abort(), 50);
    expect((await pending).verdict).toBe('unverified');
  });
});
