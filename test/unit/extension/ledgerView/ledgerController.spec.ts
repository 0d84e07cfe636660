import { describe, expect, it } from 'vitest';
import {
  LedgerController,
  modelsWire,
  REFRESH_COALESCE_MS,
  REFRESH_SPACING_FACTOR,
  type Defer,
  type LedgerActions,
  type SessionSource,
  type LedgerLog,
} from '../../../../src/extension/ledgerView/ledgerController';
import type { Session } from '../../../../src/core/session/types';
import type { DecisionFilter, SessionSnapshot } from '../../../../src/core/session/types';
import { type HostMessage, parseHostMessage } from '../../../../src/protocol/ledgerProtocol';
import { parsePanel } from '../../../../src/core/panel';
import { decisionRow } from '../../support/decisionRow';
import { MemorySession } from '../../support/MemorySession';

class RecordingActions implements LedgerActions {
  readonly calls: string[] = [];
  constructor(private readonly confirm: boolean = true) {}
  async pin(model: string): Promise<void> {
    this.calls.push(`pin ${model}`);
  }
  async avoid(model: string): Promise<void> {
    this.calls.push(`avoid ${model}`);
  }
  async exportLedger(): Promise<void> {
    this.calls.push('export');
  }
  async confirmResetClass(classKey: string): Promise<boolean> {
    this.calls.push(`confirm reset ${classKey}`);
    return this.confirm;
  }
}

class RecordingLog implements LedgerLog {
  readonly lines: string[] = [];
  info(message: string): void {
    this.lines.push(`info ${message}`);
  }
  warn(message: string): void {
    this.lines.push(`warn ${message}`);
  }
  error(message: string): void {
    this.lines.push(`error ${message}`);
  }
}

/** Runs deferred work only when the test says so. */
class ManualDefer {
  readonly pending: { task: () => void; delayMs: number }[] = [];
  readonly defer: Defer = (task, delayMs) => {
    const entry = { task, delayMs };
    this.pending.push(entry);
    return () => this.pending.splice(this.pending.indexOf(entry), 1);
  };
  runAll(): void {
    for (const entry of this.pending.splice(0)) entry.task();
  }
}

function harness(options: { confirm?: boolean } = {}) {
  const session = new MemorySession();
  const posted: HostMessage[] = [];
  const actions = new RecordingActions(options.confirm);
  const log = new RecordingLog();
  const timers = new ManualDefer();
  const controller = new LedgerController({
    session,
    post: (message) => {
      // Whatever the host posts must be what the webview accepts.
      const parsed = parseHostMessage(JSON.parse(JSON.stringify(message)));
      if (!parsed.ok) throw new Error(parsed.error);
      posted.push(parsed.message);
    },
    actions,
    log,
    defer: timers.defer,
  });
  return { session, posted, actions, log, timers, controller };
}

const ready = { type: 'ready', filter: {}, offset: 0, limit: 50 };

describe('the ledger panel controller', () => {
  it('answers ready with one snapshot holding a page of decisions, never the whole log', async () => {
    const { session, posted, controller } = harness();
    for (let index = 0; index < 119; index++) session.rows.push(decisionRow({ call: `c${index}`, at: index }));
    session.rows.push(decisionRow({ call: 'c119', at: 119, class: 'edit', shape: 'typescript' }));
    await controller.receive({ ...ready, limit: 20 });
    expect(posted).toHaveLength(1);
    const snapshot = posted[0];
    expect(snapshot?.type).toBe('snapshot');
    if (snapshot?.type !== 'snapshot') return;
    expect(snapshot.decisions.rows).toHaveLength(20);
    expect(snapshot.decisions.total).toBe(120);
    expect(snapshot.decisions.rows[0]).toMatchObject({ call: 'c119', classKey: 'edit/typescript' });
    expect(snapshot.models.map((model) => [model.slug, model.local])).toEqual([
      ['qwen2.5:3b', true],
      ['qwen3:14b', true],
      ['openai/gpt-4o-mini', false],
    ]);
  });

  it('pages with the filter the webview asked for', async () => {
    const { session, posted, controller } = harness();
    session.rows.push(
      decisionRow({ call: 'a', verdict: 'fail' }),
      decisionRow({ call: 'b', verdict: 'pass' }),
      decisionRow({ call: 'c', verdict: 'fail' }),
    );
    await controller.receive(ready);
    await controller.receive({ type: 'page', filter: { verdict: 'fail' }, offset: 1, limit: 10 });
    expect(session.snapshots.at(-1)).toEqual({ offset: 1, limit: 10, filter: { verdict: 'fail' } });
    expect(posted.at(-1)).toEqual({
      type: 'page',
      decisions: expect.objectContaining({ total: 2, offset: 1, filter: { verdict: 'fail' } }),
    });
    const page = posted.at(-1);
    if (page?.type === 'page') expect(page.decisions.rows.map((row) => row.call)).toEqual(['a']);
  });

  it('drops and logs a message of the wrong shape without acting on it', async () => {
    const { session, posted, actions, log, controller } = harness();
    await controller.receive(ready);
    const before = session.snapshots.length;
    await controller.receive({ type: 'page', filter: {}, offset: 0, limit: 100_000 });
    await controller.receive({ type: 'reset-class' });
    await controller.receive('export');
    expect(session.snapshots.length).toBe(before);
    expect(session.resets).toEqual([]);
    expect(actions.calls).toEqual([]);
    expect(posted).toHaveLength(1);
    expect(log.lines.filter((line) => line.startsWith('warn ledger panel: dropped a malformed'))).toHaveLength(3);
  });

  it('says where a new decision goes in the list the page shows, under the filter the page last asked for', async () => {
    const { session, posted, controller } = harness();
    await controller.receive(ready);
    session.write(decisionRow({ call: 'older', verdict: 'fail' }));
    await controller.receive({ type: 'page', filter: { verdict: 'fail' }, offset: 0, limit: 50 });
    session.write(decisionRow({ call: 'newer', verdict: 'fail' }));
    session.write(decisionRow({ call: 'passed' }));
    expect(session.placeFilters).toEqual([{}, { verdict: 'fail' }, { verdict: 'fail' }]);
    expect(posted.filter((message) => message.type === 'decision-added').map(({ row, ...place }) => [row.call, place])).toEqual([
      ['older', { type: 'decision-added', filter: {}, offset: 0, added: 1 }],
      ['newer', { type: 'decision-added', filter: { verdict: 'fail' }, offset: 0, added: 1 }],
      ['passed', { type: 'decision-added', filter: { verdict: 'fail' }, offset: null, added: 0 }],
    ]);
  });

  it('sends a new decision it could not place unplaced, and says why in the log', async () => {
    const { session, posted, log, controller } = harness();
    await controller.receive(ready);
    session.placeOf = () => {
      throw new Error('EIO: the log could not be read');
    };
    session.write(decisionRow({ call: 'c' }));
    expect(posted.at(-1)).toMatchObject({ type: 'decision-added', row: { call: 'c' }, offset: null, added: 0 });
    expect(log.lines).toEqual(['error ledger panel: could not place a new decision row: EIO: the log could not be read']);
  });

  it('asks the session for the page that ends where the page on screen starts when the user goes to newer rows', async () => {
    const { session, posted, controller } = harness();
    for (let index = 0; index < 5; index++) session.rows.push(decisionRow({ call: `c${index}` }));
    await controller.receive(ready);
    await controller.receive({ type: 'page', filter: {}, offset: 1, limit: 2, before: 3 });
    expect(session.snapshots.at(-1)).toEqual({ offset: 1, limit: 2, filter: {}, before: 3 });
    expect(posted.at(-1)?.type).toBe('page');
  });

  it('sends nothing before the webview is ready', () => {
    const { session, posted, timers } = harness();
    session.write(decisionRow({ call: 'early' }));
    timers.runAll();
    expect(posted).toEqual([]);
  });

  it('forwards a new decision at once and re-reads ratings and spend once for a burst', async () => {
    const { session, posted, timers, controller } = harness();
    await controller.receive(ready);
    session.write(
      decisionRow({
        call: 'n1',
        model: 'qwen2.5:3b',
        verdict: 'fail',
        pruned: [{ model: 'qwen3:14b', reason: 'busy qwen3:14b 1/1 in flight' }],
      }),
    );
    session.write(decisionRow({ call: 'n1', model: 'openai/gpt-4o-mini', rung: 1 }));
    session.emit({ type: 'ledger-changed' });
    expect(posted.slice(1).map((message) => message.type)).toEqual(['decision-added', 'decision-added']);
    const added = posted[1];
    if (added?.type === 'decision-added')
      expect(added.row.pruned).toEqual([{ model: 'qwen3:14b', reason: 'busy qwen3:14b 1/1 in flight' }]);
    expect(timers.pending.map((entry) => entry.delayMs)).toEqual([REFRESH_COALESCE_MS]);
    session.spend = { ...session.spend, total: 0.5 };
    timers.runAll();
    expect(posted.slice(3).map((message) => message.type)).toEqual(['ratings-changed', 'spend-changed']);
    const spend = posted[4];
    if (spend?.type === 'spend-changed') expect(spend.spend.total).toBe(0.5);
  });

  it('forwards pin, avoid and export to the extension, for models the panel showed', async () => {
    const { actions, log, controller } = harness();
    await controller.receive(ready);
    await controller.receive({ type: 'pin', model: 'qwen3:14b' });
    await controller.receive({ type: 'avoid', model: 'qwen2.5:3b' });
    await controller.receive({ type: 'pin', model: 'not/on-the-panel' });
    await controller.receive({ type: 'export' });
    expect(actions.calls).toEqual(['pin qwen3:14b', 'avoid qwen2.5:3b', 'export']);
    expect(log.lines).toContain("warn ledger panel: dropped pin of 'not/on-the-panel', a model the panel never showed");
  });

  it('resets a class only after the user confirms', async () => {
    const declined = harness({ confirm: false });
    await declined.controller.receive(ready);
    await declined.controller.receive({ type: 'reset-class', classKey: 'plan' });
    expect(declined.session.resets).toEqual([]);
    expect(declined.actions.calls).toEqual(['confirm reset plan']);

    const confirmed = harness({ confirm: true });
    await confirmed.controller.receive(ready);
    await confirmed.controller.receive({ type: 'reset-class', classKey: 'plan' });
    expect(confirmed.session.resets).toEqual(['plan']);
    expect(confirmed.posted.at(-1)).toEqual({
      type: 'notice',
      level: 'info',
      message: 'Forgot every rating at plan; the decision log is kept.',
    });
  });

  it('tells the webview when an action fails, and logs it', async () => {
    const { session, posted, log, controller } = harness();
    session.resetClass = () => Promise.reject(new Error('ledger is read-only'));
    await controller.receive(ready);
    await controller.receive({ type: 'reset-class', classKey: 'plan' });
    expect(posted.at(-1)).toEqual({ type: 'notice', level: 'error', message: 'ledger panel: reset-class failed: ledger is read-only' });
    expect(log.lines.at(-1)).toBe('error ledger panel: reset-class failed: ledger is read-only');
  });

  it('sends the new panel when it changes and stops listening when disposed', async () => {
    const { session, posted, timers, controller } = harness();
    await controller.receive(ready);
    await session.setPanel({ ...session.panel, models: [{ slug: 'only/one', provider: 'openrouter' }] });
    const changed = posted.at(-1);
    expect(changed?.type).toBe('panel-changed');
    if (changed?.type === 'panel-changed') expect(changed.models.map((model) => model.slug)).toEqual(['only/one']);
    controller.dispose();
    expect(session.listenerCount).toBe(0);
    session.emit({ type: 'ledger-changed' });
    timers.runAll();
    expect(posted.at(-1)).toBe(changed);
  });

  it('answers a what-if request with one estimate per panel model, read from the session only when asked', async () => {
    const { session, posted, controller } = harness();
    session.openerEstimates = [
      {
        model: 'qwen2.5:3b',
        calls: 1240,
        versusLog: {
          loggedCost: 0.002,
          loggedSuccess: 0.8,
          costChange: -0.34,
          costChangeLow: -0.42,
          costChangeHigh: -0.26,
          successChange: -0.02,
          successChangeLow: -0.05,
          successChangeHigh: 0.01,
        },
      },
      { model: 'openai/gpt-4o-mini', calls: 1240, refused: 'too-few' },
    ];
    await controller.receive(ready);
    expect(session.estimateRequests).toBe(0);
    await controller.receive({ type: 'estimate-openers' });
    expect(session.estimateRequests).toBe(1);
    expect(posted.at(-1)).toEqual({
      type: 'opener-estimates',
      estimates: [
        {
          model: 'qwen2.5:3b',
          calls: 1240,
          versusLog: expect.objectContaining({ costChange: -0.34, successChangeHigh: 0.01 }),
          refused: null,
        },
        { model: 'openai/gpt-4o-mini', calls: 1240, versusLog: null, refused: 'too-few' },
      ],
    });
  });

  it('says a what-if request failed as an error notice', async () => {
    const { session, posted, log, controller } = harness();
    session.estimateOpeners = () => Promise.reject(new Error('the decision log could not be read'));
    await controller.receive(ready);
    await controller.receive({ type: 'estimate-openers' });
    expect(posted.at(-1)).toEqual({
      type: 'notice',
      level: 'error',
      message: 'ledger panel: estimate-openers failed: the decision log could not be read',
    });
    expect(log.lines.at(-1)).toMatch(/^error ledger panel: estimate-openers failed/);
  });
});

describe('the ledger panel controller before and after the session opens', () => {
  it('answers a ready that came before the session with a snapshot once the session is attached', async () => {
    const posted: HostMessage[] = [];
    const controller = new LedgerController({
      post: (message) => posted.push(message),
      actions: new RecordingActions(),
      log: new RecordingLog(),
      defer: new ManualDefer().defer,
    });
    await controller.receive({ type: 'ready', filter: { verdict: 'fail' }, offset: 0, limit: 5 });
    expect(posted).toEqual([]);
    const session = new MemorySession();
    session.rows.push(decisionRow({ call: 'f', verdict: 'fail' }), decisionRow({ call: 'p', verdict: 'pass' }));
    controller.attach(session);
    expect(posted.map((message) => message.type)).toEqual(['snapshot']);
    expect(session.snapshots).toEqual([{ offset: 0, limit: 5, filter: { verdict: 'fail' } }]);
  });

  it('shows why the session did not open even when that was known before the page was ready', async () => {
    const posted: HostMessage[] = [];
    const controller = new LedgerController({
      post: (message) => posted.push(message),
      actions: new RecordingActions(),
      log: new RecordingLog(),
    });
    controller.notice('warning', 'The Rung session is not open: no panel');
    await controller.receive(ready);
    expect(posted).toEqual([{ type: 'notice', level: 'warning', message: 'The Rung session is not open: no panel' }]);
  });

  it('follows a reopened session and stops listening to the closed one', async () => {
    const { session, posted, controller } = harness();
    await controller.receive(ready);
    await controller.receive({ type: 'page', filter: { model: 'qwen3:14b' }, offset: 0, limit: 10 });
    const reopened = new MemorySession();
    controller.attach(reopened);
    expect(session.listenerCount).toBe(0);
    expect(reopened.snapshots).toEqual([{ offset: 0, limit: 10, filter: { model: 'qwen3:14b' } }]);
    reopened.write(decisionRow({ call: 'after-reopen' }));
    expect(posted.at(-1)).toMatchObject({ type: 'decision-added', row: { call: 'after-reopen' } });
  });
});

/** A session whose every snapshot costs `costMs` on a clock the controller reads. */
class SlowSession extends MemorySession {
  time = 0;
  constructor(private readonly costMs: number) {
    super();
  }
  override snapshot(options: { offset?: number; limit?: number; filter?: DecisionFilter } = {}): SessionSnapshot {
    this.time += this.costMs;
    return super.snapshot(options);
  }
}

describe('the ledger panel controller on a large log', () => {
  it('spaces refreshes by ten times what the last one cost, so a slow snapshot cannot keep the host busy', async () => {
    const session = new SlowSession(400);
    const timers = new ManualDefer();
    const controller = new LedgerController({
      session,
      post: () => undefined,
      actions: new RecordingActions(),
      log: new RecordingLog(),
      defer: timers.defer,
      now: () => session.time,
    });
    await controller.receive(ready);
    session.write(decisionRow({ call: 'a' }));
    expect(timers.pending.map((entry) => entry.delayMs)).toEqual([REFRESH_COALESCE_MS]);
    timers.runAll();
    session.write(decisionRow({ call: 'b' }));
    expect(timers.pending.map((entry) => entry.delayMs)).toEqual([400 * REFRESH_SPACING_FACTOR]);
  });
});

/** The extension's SessionHost as the view sees it: a session that opens when the test says, and reopens. */
class OpeningSource implements SessionSource {
  private readonly listeners = new Set<(session: Session | undefined) => void>();
  private waiting: { resolve: (session: Session) => void; reject: (error: Error) => void } | undefined;

  get(): Promise<Session> {
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  onDidOpen(listener: (session: Session | undefined) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** The first open fails with `reason` (no panel yet). */
  fail(reason: string): void {
    this.waiting?.reject(new Error(reason));
    this.fire(undefined);
  }

  /** A session opens (the first, or a reopen). */
  open(session: Session): void {
    this.waiting?.resolve(session);
    this.waiting = undefined;
    this.fire(session);
  }

  fire(session: Session | undefined): void {
    for (const listener of [...this.listeners]) listener(session);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }
}

describe('the ledger panel controller while the session opens', () => {
  it('says why the session is not open, then shows the ledger as soon as the host opens one, asking nothing in between', async () => {
    const source = new OpeningSource();
    const timers = new ManualDefer();
    const posted: HostMessage[] = [];
    const controller = new LedgerController({
      post: (message) => posted.push(message),
      actions: new RecordingActions(),
      log: new RecordingLog(),
      defer: timers.defer,
    });
    controller.follow(source);
    await controller.receive(ready);
    source.fail('no panel yet');
    await Promise.resolve();
    expect(posted).toEqual([{ type: 'notice', level: 'warning', message: 'The Rung session is not open: no panel yet' }]);
    // Nothing is asked again on a timer: the host says when a session opens.
    expect(timers.pending).toEqual([]);
    const session = new MemorySession();
    source.open(session);
    expect(posted.at(-1)?.type).toBe('snapshot');
    expect(session.snapshots).toHaveLength(1);
  });

  it('follows every reopen, lets go of the closed session, and stops following once disposed', async () => {
    const source = new OpeningSource();
    const posted: HostMessage[] = [];
    const controller = new LedgerController({
      post: (message) => posted.push(message),
      actions: new RecordingActions(),
      log: new RecordingLog(),
      defer: new ManualDefer().defer,
    });
    const following = controller.follow(source);
    await controller.receive(ready);
    const first = new MemorySession();
    source.open(first);
    expect(first.listenerCount).toBe(1);
    source.fire(undefined);
    expect(first.listenerCount).toBe(0);
    const second = new MemorySession();
    source.open(second);
    expect(second.snapshots).toHaveLength(1);
    following.dispose();
    expect(source.listenerCount).toBe(0);
    source.open(new MemorySession());
    expect(second.listenerCount).toBe(1);
  });
});

describe('the panel models the ledger page shows', () => {
  it('marks a keyless OpenAI-compatible server on loopback local, as the ranking does, and a keyed or remote one not', () => {
    const panel = parsePanel(
      {
        models: [
          { slug: 'qwen2.5-7b-instruct', provider: 'lmstudio' },
          { slug: 'proxied', provider: 'proxy' },
          { slug: 'openai/gpt-4o-mini', provider: 'openrouter' },
        ],
        providers: {
          lmstudio: { kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:1234/v1' },
          proxy: { kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:4000/v1', key: 'required' },
        },
      },
      'test panel',
    );
    expect(modelsWire(panel).map((model) => [model.slug, model.local])).toEqual([
      ['qwen2.5-7b-instruct', true],
      ['proxied', false],
      ['openai/gpt-4o-mini', false],
    ]);
  });

  it('gives the ledger the catalog\'s price for a model the panel prices not, so it does not read "price unknown"', () => {
    const panel = parsePanel(
      {
        models: [
          { slug: 'openai/gpt-4o', provider: 'openrouter' },
          { slug: 'openai/o3', provider: 'openrouter' },
        ],
      },
      'test panel',
    );
    const wire = modelsWire(panel, [{ model: 'openai/gpt-4o', input: 2.5, output: 10, from: 'catalog' }]);
    expect(wire.map((model) => [model.slug, model.price])).toEqual([
      ['openai/gpt-4o', { input: 2.5, output: 10 }],
      ['openai/o3', null],
    ]);
  });
});

describe('the ledger panel controller, on rows longer or stranger than the protocol takes', () => {
  const longModel = `vendor/${'m'.repeat(593)}`;

  it('shows a 3 MiB provider error and a 600-character model id cut and marked, in a snapshot the page takes', async () => {
    const { session, posted, controller } = harness();
    session.rows.push(
      decisionRow({
        call: 'c-huge',
        verdict: 'provider-error',
        verdictReason: `provider-error: ${'x'.repeat(3 * 1024 * 1024)}`,
        resolved: longModel,
      }),
    );
    session.ratings = [
      {
        model: longModel,
        classKey: 'plan',
        rating: 0,
        ability: 0.5,
        uncertainty: null,
        graded: 0,
        ok: 0,
        measured: false,
        updatedAt: 0,
        gate: 8,
      },
    ];
    await controller.receive(ready);
    const snapshot = posted[0] as Extract<HostMessage, { type: 'snapshot' }>;
    expect(snapshot.type).toBe('snapshot');
    const row = snapshot.decisions.rows[0];
    expect(row?.verdictReason?.length).toBeLessThanOrEqual(10_000);
    expect(row?.verdictReason).toMatch(/^provider-error: xxx.*… \[truncated, 3,145,744 characters\]$/s);
    expect(row?.resolved).toMatch(/^vendor\/mmm.*… \[truncated, 600 characters, #[0-9a-f]{8}\]$/s);
    expect(snapshot.ratings[0]?.model).toBe(row?.resolved);
  });

  it('cuts a long row written while the page is open, and leaves out only a row the page cannot show at all, saying so in the log', async () => {
    const { session, posted, log, controller } = harness();
    session.rows.push(decisionRow({ call: 'c-good' }), decisionRow({ call: 'c-odd', propensity: 5 }));
    await controller.receive(ready);
    const snapshot = posted[0] as Extract<HostMessage, { type: 'snapshot' }>;
    expect(snapshot.decisions.rows.map((row) => row.call)).toEqual(['c-good']);
    expect(log.lines).toContainEqual(
      expect.stringMatching(/^warn ledger panel: left out 1 of 2 decision rows the page cannot show \(call c-odd: propensity: too_big\)$/),
    );
    session.write(decisionRow({ call: 'c-new', reason: 'r'.repeat(20_000) }));
    const added = posted.find((message) => message.type === 'decision-added');
    expect(added?.type === 'decision-added' && added.row.reason).toMatch(/… \[truncated, 20,000 characters\]$/);
  });

  it('writes in the Rung log a message the page said it could not show', async () => {
    const { log, controller } = harness();
    await controller.receive({
      type: 'rejected',
      message: 'snapshot',
      error: "dropped a malformed 'snapshot' message: decisions.rows.0.verdictReason: too_big",
    });
    expect(log.lines).toEqual([
      "error ledger panel: the page could not show a 'snapshot' message: dropped a malformed 'snapshot' message: decisions.rows.0.verdictReason: too_big",
    ]);
  });
});
