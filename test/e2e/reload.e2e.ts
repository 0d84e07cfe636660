/**
 * A Reload Window in the middle of a routed call: what the window learned before the reload is on disk
 * afterwards exactly once, and the ledger agrees with the decision log.
 *
 * @remarks
 * The call is an `@rung /edit` over two local Ollama models: the cheap one answers code that does not
 * parse at once (a graded failure), so the call escalates to a slow one that streams a line every
 * {@link SLOW_LINE_MS} and is still streaming when the check reloads the window. The graded failure's
 * decision row and its observation are then both only queued in memory (each lands at most once a
 * second), so it is `deactivate` that has to land both, or neither. After the reload the check reads
 * `.rung/decisions.jsonl` and `.rung/ledger.sqlite` (sql.js, in this process): every model's graded
 * count at the call's class must equal the log's graded rows for it, and the file must pass SQLite's
 * `integrity_check`.
 *
 * A reload does not always end the old extension host. When the page goes before the renderer's
 * goodbye reaches the server, code-server keeps that host for the client's return (its reconnection
 * grace time, hours by default) and the call runs to its end there, writing its rows beside the new
 * window's host: the two-processes case, in a real host. Both endings are the host's to choose, so the
 * check takes either and holds Rung to the same rule in each — the ledger counts each graded row of
 * the log once — and logs which one it saw. A second check makes the second ending certain: it drops
 * the page's goodbye (as a connection lost during the reload would), so every run has the old host
 * finish the call while the new window's host holds the same ledger.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { eventually, type E2eCheck, type Workbench } from './workbench';
import type { DecisionRow } from '../../src/core/decisions/decision';
import { decisionRows, ledgerOnDisk } from './workspaceFiles';
import { INTERRUPTED_REASON } from '../../src/core/verdict';
import { scaled } from '../timeScale';

/** The first rung: answers at once, with code that does not parse. */
const QUICK_MODEL = 'tiny-coder:1b';
/** The second rung: still answering when the window reloads. */
const SLOW_MODEL = 'slow-coder:7b';
/** The slow model sends one NDJSON line this often, ms. */
const SLOW_LINE_MS = 500;
/** Lines the slow model would send: a minute's worth (scaled), far longer than the check waits before reloading. */
const SLOW_LINES = Math.ceil(scaled(60_000) / SLOW_LINE_MS);
/** How long the check waits for the workbench, the call and the reload, ms. */
const WAIT_MS = scaled(60_000);

/** A local server speaking Ollama's protocol for the two models, and what it saw of the slow answer. */
interface SlowOllama {
  url: string;
  /** Resolves when the slow model's answer has started streaming. */
  slowStarted: Promise<void>;
  /** Resolves when the slow answer's connection closed, with how many lines had been sent. */
  slowClosed: Promise<{ sent: number }>;
  close(): Promise<void>;
}

async function startSlowOllama(): Promise<SlowOllama> {
  let started!: () => void;
  let closed!: (value: { sent: number }) => void;
  const slowStarted = new Promise<void>((resolve) => (started = resolve));
  const slowClosed = new Promise<{ sent: number }>((resolve) => (closed = resolve));
  const line = (model: string, content: string, done = false): string =>
    `${JSON.stringify({ model, message: { role: 'assistant', content }, done, ...(done ? { done_reason: 'stop', prompt_eval_count: 40, eval_count: 12 } : {}) })}\n`;
  const server = createServer((request, response) => void answer(request, response));
  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const path = (request.url ?? '/').split('?')[0];
    if (request.method === 'GET' && path === '/api/tags') {
      const models = [QUICK_MODEL, SLOW_MODEL].map((name) => ({
        name,
        model: name,
        digest: `sha256:${name.length}0123456789abcdef`,
        size: 1,
        details: { family: 'tiny', parameter_size: '1.1B' },
      }));
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ models }));
      return;
    }
    if (request.method !== 'POST' || path !== '/api/chat') {
      response.writeHead(404).end('404 page not found');
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model?: string };
    response.writeHead(200, { 'content-type': 'application/x-ndjson' });
    if (body.model !== SLOW_MODEL) {
      response.write(line(QUICK_MODEL, 'Here you go:\n```ts\nconst answer = ;\n```\n'));
      response.end(line(QUICK_MODEL, '', true));
      return;
    }
    let sent = 0;
    response.on('close', () => closed({ sent }));
    started();
    for (; sent < SLOW_LINES && !response.destroyed; sent++) {
      response.write(line(SLOW_MODEL, sent === 0 ? '```ts\n' : '// still thinking\n'));
      await new Promise((resolve) => setTimeout(resolve, SLOW_LINE_MS));
    }
    if (!response.destroyed) response.end(line(SLOW_MODEL, 'const answer = 42;\n```\n', true));
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    slowStarted,
    slowClosed,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Rejects with `what` when `promise` has not settled within {@link WAIT_MS}. */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, fail) => (timer = setTimeout(() => fail(new Error(`${what} did not happen within ${WAIT_MS} ms`)), WAIT_MS))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Graded rows of the decision log per `model|class` (the resolved model where a slug was an alias). */
function gradedRows(rows: readonly DecisionRow[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const row of rows) {
    if (row.verdict !== 'pass' && row.verdict !== 'fail') continue;
    const key = `${row.resolved ?? row.model}|${row.class}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** The ledger's graded counts at the classes the log's rows name: earlier checks' classes are not this one's. */
function gradedOf(graded: ReadonlyMap<string, number>, rows: readonly DecisionRow[]): Map<string, number> {
  const classes = new Set(rows.map((row) => row.class));
  return new Map([...graded].filter(([key]) => classes.has(key.slice(key.indexOf('|') + 1))));
}

function sameMap(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): boolean {
  return a.size === b.size && [...a].every(([key, value]) => b.get(key) === value);
}

/**
 * Runs "Developer: Reload Window" from the palette and waits for the workbench to come back. With
 * `dropGoodbye`, nothing the page sends from then on leaves it, so the server never hears the renderer
 * end its extension host.
 */
async function reloadWindow(page: Page, workbench: Workbench, dropGoodbye: boolean): Promise<void> {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor();
  await input.fill('>Developer: Reload Window');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Developer: Reload Window' }).first().waitFor();
  const loaded = page.waitForEvent('load', { timeout: WAIT_MS });
  if (dropGoodbye) {
    await page.evaluate(() => {
      WebSocket.prototype.send = () => undefined;
    });
  }
  await page.keyboard.press('Enter');
  await loaded;
  await workbench.waitUntilReady();
}

function reloadMidCall(dropGoodbye: boolean): E2eCheck {
  let ollama: SlowOllama | undefined;
  return {
    name: dropGoodbye
      ? 'a Reload Window whose goodbye is lost leaves the call to the old extension host, and the ledger it shares with the new one counting exactly the graded rows'
      : 'a Reload Window during a routed call leaves the ledger counting exactly the graded rows of the decision log',
    async prepare(folder) {
      ollama = await startSlowOllama();
      const panel = {
        models: [
          { slug: QUICK_MODEL, provider: 'ollama', role: 'base', context: 32768, tools: true },
          { slug: SLOW_MODEL, provider: 'ollama', role: 'top', context: 32768, tools: true },
        ],
        routing: { explore: 0 },
        providers: { ollama: { kind: 'ollama', baseUrl: ollama.url } },
      };
      mkdirSync(join(folder, '.rung'), { recursive: true });
      writeFileSync(join(folder, '.rung', 'panel.json'), `${JSON.stringify(panel, null, 2)}\n`);
    },
    async run(page, workbench) {
      assert.ok(ollama, 'the model server started');
      try {
        await page.locator('.statusbar-item', { hasText: 'Rung: Auto' }).first().waitFor({ timeout: WAIT_MS });
        await workbench.sendChat('@rung /edit write a constant holding the answer');
        // The quick rung has failed and the slow one is streaming: the call is in the middle of its climb.
        await within(ollama.slowStarted, 'the escalation to the slow model');
        await workbench.screenshot(`reload-mid-call${dropGoodbye ? '-goodbye-lost' : ''}-before`);
        await reloadWindow(page, workbench, dropGoodbye);
        const { sent } = await within(ollama.slowClosed, 'the end of the slow answer');
        // Cut: the old host ended with the page, and its deactivate landed the call as interrupted on
        // its second rung. Outlived: the old host kept the call, which ran to its passing end there.
        const outlived = sent >= SLOW_LINES;
        if (dropGoodbye)
          assert.ok(
            outlived,
            `without the page's goodbye the old extension host kept the call (the answer closed after ${sent} of ${SLOW_LINES} lines)`,
          );
        else if (outlived)
          console.log(`        (the old extension host outlived the reload: the slow answer ran to its end, ${sent} lines)`);
        await page.locator('.statusbar-item', { hasText: 'Rung: Auto' }).first().waitFor({ timeout: WAIT_MS });
        await workbench.screenshot(`reload-mid-call${dropGoodbye ? '-goodbye-lost' : ''}-after`);

        const expected = [
          [QUICK_MODEL, 'fail'],
          [SLOW_MODEL, outlived ? 'pass' : 'interrupted'],
        ];
        let rows = decisionRows(workbench.folder);
        let ledger = await ledgerOnDisk(workbench.folder);
        if (outlived) {
          // The outliving host lands its last row and observation on its own once-a-second timers; if
          // they never agree, the assertions below say how.
          await eventually(
            async () => {
              rows = decisionRows(workbench.folder);
              ledger = await ledgerOnDisk(workbench.folder);
              const call = rows.find((row) => row.model === QUICK_MODEL)?.call;
              return (
                rows.filter((row) => row.call === call).length >= expected.length &&
                sameMap(gradedOf(ledger.graded, rows), gradedRows(rows))
              );
            },
            "the call's rows and their observations are on disk",
            15_000,
          ).catch(() => undefined);
        }

        const call = rows.find((row) => row.model === QUICK_MODEL)?.call;
        assert.ok(call, `the decision log holds the first rung's row: ${JSON.stringify(rows.map((row) => [row.model, row.verdict]))}`);
        const fromRows = gradedRows(rows);
        assert.equal(ledger.integrity, 'ok');
        assert.deepEqual(
          gradedOf(ledger.graded, rows),
          fromRows,
          "the ledger counts each graded row of the decision log once, at the call's class",
        );
        assert.ok([...fromRows.values()].reduce((sum, count) => sum + count, 0) >= 1, 'the call graded something before the reload');
        assert.deepEqual(
          rows.filter((row) => row.call === call).map((row) => [row.model, row.verdict]),
          expected,
          outlived
            ? 'the call passed on its second rung in the old host, after its first rung failed its check'
            : 'the call was interrupted on its second rung, after its first rung failed its check',
        );
        if (!outlived) {
          assert.equal(
            rows.find((row) => row.call === call && row.model === SLOW_MODEL)?.verdictReason,
            INTERRUPTED_REASON,
            'the interrupted rung says the window closed or reloaded, not that the user stopped it',
          );
          // The new window's first @rung request names the call the reload cut off, above its own answer.
          await workbench.sendChat('@rung /why');
          await page
            .locator('.interactive-item-container.interactive-response', {
              hasText: `was interrupted: the window closed or reloaded while ${SLOW_MODEL} was answering`,
            })
            .first()
            .waitFor({ timeout: WAIT_MS });
          await workbench.screenshot('reload-mid-call-interrupted-named');
        }
      } finally {
        await ollama.close();
      }
    },
  };
}

export default [reloadMidCall(false), reloadMidCall(true)];
