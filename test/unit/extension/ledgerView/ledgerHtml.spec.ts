import { describe, expect, it } from 'vitest';
import { ledgerHtml, makeNonce } from '../../../../src/extension/ledgerView/ledgerHtml';

const input = {
  cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
  scriptUri: 'https://x/dist/webview.js',
  styleUris: ['https://x/dist/codicons.css', 'https://x/media/ledger.css'],
};

describe('the ledger page', () => {
  it('denies everything by default and allows only its own styles, fonts and the nonced script', () => {
    const html = ledgerHtml({ ...input, nonce: 'abc123' });
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1];
    expect(csp).toBe(
      "default-src 'none'; img-src https://file+.vscode-resource.vscode-cdn.net data:; style-src https://file+.vscode-resource.vscode-cdn.net; font-src https://file+.vscode-resource.vscode-cdn.net; script-src 'nonce-abc123'",
    );
    expect(html).toContain('<script nonce="abc123" src="https://x/dist/webview.js"></script>');
    expect(html).not.toMatch(/<style|style="|unsafe-inline/);
  });

  it('draws a fresh 128-bit nonce for every load', () => {
    const nonces = new Set(Array.from({ length: 50 }, () => makeNonce()));
    expect(nonces.size).toBe(50);
    for (const nonce of nonces) expect(Buffer.from(nonce, 'base64')).toHaveLength(16);
  });
});
