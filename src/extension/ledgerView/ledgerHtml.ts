/**
 * The ledger webview's page: a shell that loads the bundled script and the stylesheets, under a
 * deny-by-default Content Security Policy.
 *
 * @remarks
 * Nothing is inline: styles and fonts come only from the webview's resource origin (the extension's
 * `dist/` and `media/`, the view's `localResourceRoots`), and the one script runs by a nonce drawn
 * fresh from a CSPRNG for every load, so a string that reached the page from a decision row could not
 * run even if a renderer bug let it in as markup. No `vscode` import, so a unit test reads the policy.
 */
import { randomBytes } from 'node:crypto';

/** Bytes of randomness in a nonce: 128 bits, as the CSP specification recommends at least. */
export const NONCE_BYTES = 16;

export function makeNonce(): string {
  return randomBytes(NONCE_BYTES).toString('base64');
}

export interface LedgerHtmlInput {
  /** `webview.cspSource`: the origin the webview serves local resources from. */
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUris: string[];
}

export function ledgerHtml(input: LedgerHtmlInput): string {
  const csp = [
    "default-src 'none'",
    `img-src ${input.cspSource} data:`,
    `style-src ${input.cspSource}`,
    `font-src ${input.cspSource}`,
    `script-src 'nonce-${input.nonce}'`,
  ].join('; ');
  const styles = input.styleUris.map((uri) => `  <link rel="stylesheet" href="${escapeAttribute(uri)}">`).join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <meta http-equiv="Content-Security-Policy" content="${escapeAttribute(csp)}">
  <meta name="viewport" content="width=device-width, initial-scale=1.0">
${styles}
  <title>Rung Ledger</title>
</head>
<body>
  <main id="app" aria-busy="true"><p class="loading">Loading the ledger…</p></main>
  <script nonce="${escapeAttribute(input.nonce)}" src="${escapeAttribute(input.scriptUri)}"></script>
</body>
</html>`;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}
