import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import * as vscode from 'vscode';

describe('canary', () => {
  it('passes when run inside the extension host', () => {
    assert.equal(typeof vscode.version, 'string');
  });

  it('fails on purpose, so that a run with a failing test is seen to fail', () => {
    assert.equal(1 + 1, 3, 'the canary failure');
  });
});
