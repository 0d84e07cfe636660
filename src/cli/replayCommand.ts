/**
 * `rung replay OUTCOMES.jsonl`: routes recorded prompts through the real router and scores the policy
 * against the best single model, the oracle and a plain price-order cascade.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { decisionSource, parseDecisionLines, type DecisionRow, type DecisionSink } from '../core/decisions/decision';
import { decisionLogPath } from '../core/ledger/decisionLog';
import { DEFAULT_WAIT_WORTH_PER_MINUTE, MAX_WAIT_WORTH_PER_MINUTE, PanelError, type Tradeoff } from '../core/panel';
import { parseOutcomes, selectOutcomes, type OutcomeRow } from '../core/replay/outcomes';
import { generateWorld, WORLDS } from '../bench/worlds';
import { parsePrompts } from '../core/replay/prompts';
import type { PromptText } from '../core/signal/promptFeatures';
import { CONFIDENCE_FAILURE_MULTIPLE } from '../core/confidence/confidenceLearner';
import { runReplay, ungradedPanelModels, type PolicyScore, type ReplaySummary, type ReplayVerifier } from '../core/replay/replay';
import { valuedCost, type WaitScore } from '../core/replay/waitTally';
import { cliStoreLocation, SEND_WORKSPACE_LEDGER_FLAG, type StoreOpener } from './cliStore';
import type { Store } from '../core/store/store';
import { workspaceFileOf } from '../core/store/storeLocation';
import { EXIT_OK, readPanelFile, readUserFile, StoppedError, UsageError, type CliIo } from './io';
import { parseCommandArgs, type CommandUsage } from './usage';
import { explainingRefusal } from './writeRefusal';
import { parsePolicy } from '../core/evaluation/policy';

export const REPLAY_COMMAND = {
  name: 'rung replay',
  summary:
    'Routes recorded prompts through the real router and scores the policy against the best single model, the oracle, a plain price-order cascade and a simple online learner.',
  operands: '[OUTCOMES.jsonl]',
  operandHelp: [
    ['OUTCOMES.jsonl', "recorded outcomes: one JSON line per prompt, with each model's correctness and cost (or --world NAME)"],
  ],
  flags: {
    world: {
      type: 'string',
      value: 'NAME',
      description:
        'replay a built-in generated world instead of a file (listed below): its prompts made from --seed, each of --seeds drawing its own, routed in their time order',
    },
    panel: {
      type: 'string',
      value: 'FILE',
      description: 'a panel naming only graded models (without it: every model, priced at its mean recorded cost)',
    },
    verifier: {
      type: 'string',
      value: 'KIND',
      default: 'perfect',
      description:
        'how answers are checked: perfect; confidence (thresholds per model and class learned from the grades of the answers paid for); confidence:LOGPROB (one fixed threshold); or noisy:FP,FF (false-pass and false-fail rates, 0 to 1)',
    },
    'confidence-multiple': {
      type: 'string',
      value: 'M',
      description: `with --verifier confidence: what a wrong answer costs, in calls to the dearest model (default: ${CONFIDENCE_FAILURE_MULTIPLE.quality} for quality, ${CONFIDENCE_FAILURE_MULTIPLE.economy} for economy)`,
    },
    'class-key': { type: 'string', value: 'KEY', default: 'family', description: 'what the router learns per: family or subfamily' },
    tradeoff: { type: 'string', value: 'MODE', description: "quality or economy (overrides the panel's)" },
    explore: { type: 'string', value: 'RATE', description: "exploration rate, 0 to 1 (overrides the panel's)" },
    'explore-measured': {
      type: 'string',
      value: 'RATE',
      description:
        "exploration floor on measured rungs, 0 to 1: the chance any rung opens, so the log can answer rung evaluate (overrides the panel's routing.exploreMeasured)",
    },
    'wait-worth': {
      type: 'string',
      value: 'USD',
      description: `what a minute of the user's wait is worth to the router, USD (overrides the panel's routing.waitWorth; default ${DEFAULT_WAIT_WORTH_PER_MINUTE}; 0 plans on money alone)`,
    },
    policy: {
      type: 'string',
      value: 'SPEC',
      description: 'run this policy instead: open=MODEL (pin the opener), skip=MODEL (never try it), explore=RATE, joined with commas',
    },
    seed: { type: 'string', value: 'N', default: '1', description: 'shuffles the prompts and drives exploration and verifier noise' },
    seeds: {
      type: 'string',
      value: 'K',
      description: 'run seeds N to N+K-1 and report the mean and spread (with --world, each seed draws its own world)',
    },
    decisions: {
      type: 'string',
      value: 'FILE',
      description:
        "write one decision row per attempt to FILE (JSON lines), replacing it: only a new file, an empty one or an earlier replay's rows",
    },
    ledger: {
      type: 'string',
      value: 'FILE|URL',
      description:
        'start from this ledger and leave what was learned in it; decisions go to decisions.jsonl beside it (for a team server, postgres://…, in .rung/ here)',
    },
    'share-decisions': {
      type: 'boolean',
      default: false,
      description:
        "also send this run's decision rows (no prompts: class, candidates, model, verdict, cost) to the team server named by --ledger postgres://…; off: they stay in .rung/ here",
    },
    ...SEND_WORKSPACE_LEDGER_FLAG,
    json: { type: 'boolean', default: false, description: 'print the summary as one JSON object' },
    split: { type: 'string', value: 'NAME', description: 'only prompts of this split of the source (its split_src: train or test)' },
    family: { type: 'string', value: 'F', multiple: true, description: 'only prompts of this family (repeat for more)' },
    'exclude-family': {
      type: 'string',
      value: 'F',
      multiple: true,
      description: 'leave this family out (repeat for more): the leave-one-family-out runs',
    },
    prompts: {
      type: 'string',
      value: 'FILE',
      description:
        'the prompts\' text by id (JSON lines: {"id", "prompt"}), read as features for the per-prompt signal and the answer format\'s guessing floor before any model is called (both off without it, as in a panel without routing.promptSignal)',
    },
    'in-order': {
      type: 'boolean',
      default: false,
      description: "route prompts in the file's order instead of shuffled (outcomes in time order, such as a drifting world)",
    },
  },
  notes: [
    '--decisions and --ledger take one run: not with --seeds.',
    '',
    'Built-in worlds (--world NAME), each made up to test the router where recorded data cannot, the same prompts from the same --seed (node scripts/quality.mjs measures them all):',
    ...WORLDS.map((world) => `  ${world.name}: ${world.about}`),
  ],
} as const satisfies CommandUsage;

export async function runReplayCommand(argv: string[], io: CliIo, openStore?: StoreOpener): Promise<number> {
  const { values, positionals } = parseCommandArgs(REPLAY_COMMAND, argv);
  const seed = parseWhole(values.seed, '--seed');
  const outcomes = readOutcomes(positionals, values.world, seed, io);
  const { path, models } = outcomes;
  const selection = { split: values.split, families: values.family, excludeFamilies: values['exclude-family'] };
  const rows = selectOutcomes(outcomes.rows, selection, path);
  const prompts = values.prompts === undefined ? undefined : readPrompts(resolve(io.cwd, values.prompts), rows, io);
  const selected = [
    values.world !== undefined
      ? `, world ${values.world}${values.seeds !== undefined && values.seeds !== '1' ? ' (each seed draws its own)' : ''}`
      : '',
    values.split ? `, split ${values.split}` : '',
    values.family ? `, families ${values.family.join(',')}` : '',
    values['exclude-family'] ? `, without ${values['exclude-family'].join(',')}` : '',
    prompts ? `, prompt text for ${prompts.size} of them` : '',
  ].join('');
  const panel = values.panel ? readPanelFile(values.panel, io) : undefined;
  const ungraded = panel ? ungradedPanelModels(panel, models) : [];
  if (values.panel && ungraded.length) throw new PanelError(values.panel, ungraded);
  const classKey = values['class-key'];
  if (classKey !== 'family' && classKey !== 'subfamily') throw new UsageError(`--class-key must be family or subfamily, not "${classKey}"`);
  const tradeoff = values.tradeoff;
  if (tradeoff !== undefined && tradeoff !== 'quality' && tradeoff !== 'economy')
    throw new UsageError(`--tradeoff must be quality or economy, not "${tradeoff}"`);
  const multiple =
    values['confidence-multiple'] === undefined ? undefined : parsePositive(values['confidence-multiple'], '--confidence-multiple');
  const verifier = parseVerifier(values.verifier, (tradeoff as Tradeoff | undefined) ?? panel?.routing.tradeoff ?? 'quality', multiple);
  if (multiple !== undefined && verifier.kind !== 'learned-confidence')
    throw new UsageError('--confidence-multiple goes with --verifier confidence (the learned check)');
  const explore = values.explore === undefined ? undefined : parseRate(values.explore, '--explore');
  const exploreMeasured =
    values['explore-measured'] === undefined ? undefined : parseRate(values['explore-measured'], '--explore-measured');
  const waitWorth = values['wait-worth'] === undefined ? undefined : parseWaitWorth(values['wait-worth']);
  const policy = values.policy === undefined ? undefined : parsePolicy(values.policy);
  if (policy?.explore !== undefined && explore !== undefined)
    throw new UsageError('--explore and --policy explore= both set the rate: give one');
  const seedCount = values.seeds === undefined ? 1 : parseWhole(values.seeds, '--seeds');
  if (seedCount < 1) throw new UsageError('--seeds must be at least 1');
  if (seedCount > 1 && (values.decisions || values.ledger)) throw new UsageError('--decisions and --ledger take one run: drop --seeds');

  const location = cliStoreLocation(values.ledger, io, 'memory');
  if (values['share-decisions'] && location.kind !== 'team')
    throw new UsageError('--share-decisions sends decision rows to a team server: it needs --ledger postgres://…');
  if (values['send-workspace-ledger'] && location.kind !== 'team')
    throw new UsageError('--send-workspace-ledger sends the workspace ledger to a team server: it needs --ledger postgres://…');
  const decisionsPath = values.decisions ? resolve(io.cwd, values.decisions) : undefined;
  // Decisions hold the prompts' classes and reasons: with a team ledger they stay in this workspace.
  const logBeside = workspaceFileOf(location) ?? undefined;
  if (decisionsPath) refuseToReplace(decisionsPath, logBeside);
  const progress = seedCount > 1 && io.stderrIsTTY ? (text: string) => io.stderr(`\r${text}\u001b[K`) : undefined;
  const summaries: ReplaySummary[] = [];
  // Opened inside the try, so whatever opened before a later open fails is still closed.
  let file: FileDecisionSink | undefined;
  let store: Store | undefined;
  try {
    // Without --ledger the replay keeps its own ledger in memory, and its rows only in --decisions.
    // As every command that learns into a ledger does, the rows that explain its ratings go beside it;
    // with the team's opt-in they also go to the server, with the ledger's background flush (or, when
    // the server could not be reached, to the team's outbox, for the next run that reaches it).
    store =
      location.kind === 'memory'
        ? undefined
        : await requireOpener(openStore)(
            location,
            io,
            { shareDecisions: values['share-decisions'], sendWorkspaceLedger: values['send-workspace-ledger'] === true },
            { onDecisionNotice: (notice) => io.stderr(`${REPLAY_COMMAND.name}: ${notice.message}\n`) },
          );
    file = decisionsPath
      ? await explainingRefusal(`cannot write --decisions ${decisionsPath}`, '--decisions FILE', () => new FileDecisionSink(decisionsPath))
      : undefined;
    const sinks = [file, store?.decisions].filter((each) => each !== undefined);
    const sink: DecisionSink | undefined = sinks.length > 1 ? { append: (row) => sinks.forEach((each) => each.append(row)) } : sinks[0];
    for (let i = 0; i < seedCount; i++) {
      // A run never waits on anything outside the process, so without this turn of the event loop the
      // Ctrl-C handler would not run until every seed was done.
      if (i > 0) await new Promise((next) => setImmediate(next));
      if (io.signal?.aborted) throw new StoppedError();
      progress?.(`rung replay: seed ${seed + i} (${i + 1} of ${seedCount})…`);
      summaries.push(
        await runReplay({
          // A world is drawn again for each seed: the same world K times varies only where exploration draws, which by default is nowhere.
          rows: i === 0 || !outcomes.world ? rows : selectOutcomes(outcomes.world(seed + i), selection, path),
          models,
          panel,
          verifier,
          classKey,
          explore,
          tradeoff: tradeoff as Tradeoff | undefined,
          exploreMeasured,
          ...(waitWorth !== undefined ? { waitWorth } : {}),
          policy,
          ...(values.policy !== undefined ? { policySpec: values.policy } : {}),
          seed: seed + i,
          // A world's rows are in time order (a drift happens halfway through), as scripts/quality.mjs replays them.
          inOrder: values['in-order'] || values.world !== undefined,
          ...(prompts ? { prompts } : {}),
          sink,
          ledger: store?.ratings,
          // Replaying the same prompts again must not reuse their call ids in the same log.
          ...(sink ? { runId: `replay-${randomUUID().slice(0, 8)}` } : {}),
        }),
      );
    }
  } finally {
    progress?.('');
    file?.close();
    await store?.close();
  }

  // The first row of the table is the policy that ran: Rung's own, or the one --policy named.
  const label = values.policy ?? 'rung';
  if (seedCount === 1) {
    const summary = summaries[0] as ReplaySummary;
    io.stdout(
      values.json
        ? `${JSON.stringify(summary)}\n`
        : formatSummary(summary, describe(values.verifier, tradeoff ?? panel?.routing.tradeoff ?? 'quality', selected), label),
    );
  } else {
    const aggregate = aggregateSeeds(summaries, seed);
    io.stdout(
      values.json
        ? `${JSON.stringify(aggregate)}\n`
        : formatAggregate(aggregate, describe(values.verifier, tradeoff ?? panel?.routing.tradeoff ?? 'quality', selected), label),
    );
  }
  return EXIT_OK;
}

/**
 * The prompts to replay: the outcomes file named, or the built-in world `--world` names, made from
 * `--seed` and read back as any outcomes file is (so it is replayed exactly as `scripts/quality.mjs`
 * replays it); a usage error for neither, both, or a world that does not exist, listing the worlds.
 *
 * @remarks
 * For a world, `world` makes the world of another seed, so that `--seeds K` replays K worlds, as
 * `scripts/quality.mjs` does: the same world K times differed only in exploration's draws, none by
 * default, and reported a spread of 0.
 */
function readOutcomes(
  positionals: string[],
  worldName: string | undefined,
  seed: number,
  io: CliIo,
): { path: string; rows: OutcomeRow[]; models: string[]; world?: (seed: number) => OutcomeRow[] } {
  const worlds = WORLDS.map((world) => world.name).join(', ');
  if (worldName !== undefined) {
    if (positionals.length > 0) throw new UsageError(`give an outcomes file or --world ${worldName}, not both`);
    const world = WORLDS.find((entry) => entry.name === worldName);
    if (!world) throw new UsageError(`--world ${worldName}: no such world (the worlds: ${worlds})`);
    const source = `world ${world.name}`;
    const made = (each: number) =>
      parseOutcomes(
        generateWorld(world, each)
          .map((row) => JSON.stringify(row))
          .join('\n'),
        source,
      );
    return { path: source, ...made(seed), world: (each) => made(each).rows };
  }
  if (positionals.length === 0)
    throw new UsageError(`needs an outcomes file, or --world NAME to replay a built-in generated world (${worlds})`);
  if (positionals.length > 1) throw new UsageError(`needs exactly one outcomes file (got ${positionals.length})`);
  const path = resolve(io.cwd, positionals[0] as string);
  return { path, ...parseOutcomes(readUserFile(path, io, 'outcomes file'), path) };
}

function requireOpener(openStore: StoreOpener | undefined): StoreOpener {
  if (!openStore) throw new UsageError('--ledger is not available in this build');
  return openStore;
}

export function parseVerifier(text: string, tradeoff: Tradeoff = 'quality', confidenceMultiple?: number): ReplayVerifier {
  if (text === 'perfect') return { kind: 'perfect' };
  if (text === 'confidence') return { kind: 'learned-confidence', multiple: confidenceMultiple ?? CONFIDENCE_FAILURE_MULTIPLE[tradeoff] };
  const confidence = /^confidence:(-?\d+(?:\.\d+)?)$/.exec(text);
  if (confidence) return { kind: 'confidence', threshold: Number(confidence[1]) };
  const noisy = /^noisy:([\d.]+),([\d.]+)$/.exec(text);
  if (noisy) {
    const falsePass = parseRate(noisy[1] as string, 'noisy false-pass rate');
    const falseFail = parseRate(noisy[2] as string, 'noisy false-fail rate');
    return { kind: 'noisy', falsePass, falseFail };
  }
  throw new UsageError(`--verifier must be perfect, confidence, confidence:LOGPROB or noisy:FP,FF (rates 0–1), not "${text}"`);
}

function parsePositive(text: string, name: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new UsageError(`${name} must be a number above 0, not "${text}"`);
  return value;
}

function parseRate(text: string, name: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0 || value > 1) throw new UsageError(`${name} must be a number from 0 to 1, not "${text}"`);
  return value;
}

function parseWaitWorth(text: string): number {
  const value = Number(text);
  if (!/^\d*\.?\d+$/.test(text.trim()) || !Number.isFinite(value) || value > MAX_WAIT_WORTH_PER_MINUTE)
    throw new UsageError(`--wait-worth must be USD a minute, from 0 to ${MAX_WAIT_WORTH_PER_MINUTE}, not "${text}"`);
  return value;
}

function parseWhole(text: string, name: string): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`${name} must be a whole number, not "${text}"`);
  return Number(text);
}

/**
 * The `--prompts` file's text for the selected prompts; one that names none of them is refused, since a
 * run would then be a run without the signal that said it had one.
 */
function readPrompts(path: string, rows: readonly { id: string }[], io: CliIo): Map<string, PromptText> {
  const all = parsePrompts(readUserFile(path, io, 'prompts file'), path);
  const kept = new Map(
    rows.flatMap((row) => {
      const prompt = all.get(row.id);
      return prompt ? [[row.id, prompt] as const] : [];
    }),
  );
  if (kept.size === 0)
    throw new UsageError(
      `--prompts ${path} has no text for any selected prompt (${all.size} prompts there; ids such as "${rows[0]?.id ?? ''}" expected)`,
    );
  return kept;
}

/**
 * Refuses a `--decisions` FILE that is not an earlier replay's rows, before anything is opened.
 *
 * @remarks
 * The file is truncated and rewritten, which is what a rerun into the same file wants; but the flag
 * used to truncate whatever it named, so `--decisions OUTCOMES.jsonl` replaced the outcomes with
 * decision rows, and `--decisions .rung/decisions.jsonl` beside `--ledger` wiped the workspace's log
 * while the log's own appends went on into the same file. Only a file that holds nothing, or replay
 * rows and nothing else, may be replaced; anything else is the user's, and is left as it is.
 */
function refuseToReplace(path: string, logBeside: string | undefined): void {
  if (logBeside !== undefined && path === decisionLogPath(logBeside)) {
    throw new UsageError(
      `--decisions ${path} is the decision log beside --ledger, which gets this run's rows already: drop --decisions or name another file`,
    );
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EISDIR')
      throw new UsageError(`--decisions ${path} is a folder, not a file: name a file in it`);
    // A file that is not there yet is the usual case; a path the disk refuses is said when it is opened.
    return;
  }
  const { rows, skipped } = parseDecisionLines(text);
  if (skipped > 0 || rows.some((row) => decisionSource(row) !== 'replay')) {
    const what =
      skipped > 0
        ? `${skipped} line${skipped === 1 ? ' that is not a decision row' : 's that are not decision rows'}`
        : 'decision rows that no replay wrote';
    throw new UsageError(
      `--decisions ${path} holds ${what}, and would be replaced; it was left as it is: name a new file, or move that one away first`,
    );
  }
}

/** Writes decision rows as JSON lines, each row in one write so a reader never sees half of one. */
class FileDecisionSink implements DecisionSink {
  private readonly fd: number;
  constructor(path: string) {
    this.fd = openSync(path, 'w');
  }
  append(row: DecisionRow): void {
    writeSync(this.fd, `${JSON.stringify(row)}\n`);
  }
  close(): void {
    closeSync(this.fd);
  }
}

interface Aggregate {
  seeds: number[];
  items: number;
  waitWorth: number;
  mean: {
    policy: { accuracy: number; cost: number; attempts: number; wait?: WaitScore };
    priceOrderCascade: { accuracy: number; cost: number; wait?: WaitScore };
    onlineLearner: { accuracy: number; cost: number; attempts: number };
  };
  sd: { policy: { accuracy: number; cost: number } };
  bestSingle: ReplaySummary['bestSingle'];
  oracle: ReplaySummary['oracle'];
  runs: Omit<ReplaySummary, 'ratings' | 'rankCorrelation'>[];
  rankCorrelation: { class: string; rho: number; naiveRho: number }[];
}

function aggregateSeeds(summaries: ReplaySummary[], firstSeed: number): Aggregate {
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const sd = (xs: number[]) => {
    const m = mean(xs);
    return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / Math.max(1, xs.length - 1));
  };
  const first = summaries[0] as ReplaySummary;
  const classes = first.rankCorrelation.map((entry) => entry.class);
  const meanWait = (scores: (WaitScore | undefined)[]): { wait?: WaitScore } => {
    const known = scores.filter((score): score is WaitScore => score !== undefined);
    if (known.length !== scores.length || known.length === 0) return {};
    return {
      wait: {
        accepted: mean(known.map((w) => w.accepted)),
        meanMs: mean(known.map((w) => w.meanMs)),
        p90Ms: mean(known.map((w) => w.p90Ms)),
        totalMs: mean(known.map((w) => w.totalMs)),
      },
    };
  };
  return {
    seeds: summaries.map((_, i) => firstSeed + i),
    items: first.items,
    waitWorth: first.waitWorth,
    mean: {
      policy: {
        accuracy: mean(summaries.map((s) => s.policy.accuracy)),
        cost: mean(summaries.map((s) => s.policy.cost)),
        attempts: mean(summaries.map((s) => s.policy.attempts)),
        ...meanWait(summaries.map((s) => s.policy.wait)),
      },
      priceOrderCascade: {
        accuracy: mean(summaries.map((s) => s.priceOrderCascade.accuracy)),
        cost: mean(summaries.map((s) => s.priceOrderCascade.cost)),
        ...meanWait(summaries.map((s) => s.priceOrderCascade.wait)),
      },
      onlineLearner: {
        accuracy: mean(summaries.map((s) => s.onlineLearner.accuracy)),
        cost: mean(summaries.map((s) => s.onlineLearner.cost)),
        attempts: mean(summaries.map((s) => s.onlineLearner.attempts)),
      },
    },
    sd: { policy: { accuracy: sd(summaries.map((s) => s.policy.accuracy)), cost: sd(summaries.map((s) => s.policy.cost)) } },
    // Means: on a world each seed is another world, with its own best single model and oracle (on recorded outcomes they agree).
    bestSingle: {
      model: [...new Set(summaries.map((s) => s.bestSingle.model))].join(' / '),
      accuracy: mean(summaries.map((s) => s.bestSingle.accuracy)),
      cost: mean(summaries.map((s) => s.bestSingle.cost)),
    },
    oracle: { accuracy: mean(summaries.map((s) => s.oracle.accuracy)), cost: mean(summaries.map((s) => s.oracle.cost)) },
    runs: summaries.map(({ ratings: _r, rankCorrelation: _c, ...rest }) => rest),
    rankCorrelation: classes.map((cls) => ({
      class: cls,
      rho: mean(summaries.map((s) => s.rankCorrelation.find((entry) => entry.class === cls)?.rho ?? 0)),
      naiveRho: mean(summaries.map((s) => s.rankCorrelation.find((entry) => entry.class === cls)?.naiveRho ?? 0)),
    })),
  };
}

function describe(verifier: string, tradeoff: string, selection: string): string {
  return `verifier ${verifier}, tradeoff ${tradeoff}${selection}`;
}

/** The title's note on the wait: what a minute of it was worth to the router. */
function waitTitle(waitWorth: number): string {
  return waitWorth > 0 ? `, wait worth $${waitWorth}/min` : ', wait not weighed';
}

function share(cost: number, base: number): string {
  return base > 0 ? `${((100 * cost) / base).toFixed(1)}%` : '-';
}

/**
 * The policy table: a header and one line a policy, the figures lined up after the longest label.
 *
 * @remarks
 * At least 30 columns wide, the width every label had until the learner's label with a five-figure
 * attempt count outgrew it and pushed its figures out of their columns.
 */
function policyTable(rows: [label: string, figures: string][], timed: boolean): string[] {
  const width = Math.max(30, ...rows.map(([label]) => label.length + 1));
  const wait = timed ? '   wait to answer: mean    p90   cost+wait $' : '';
  return [
    `${'policy'.padEnd(width + 1)}accuracy    cost $   cost / best single${wait}`,
    ...rows.map(([label, figures]) => label.padEnd(width) + figures),
  ];
}

function formatSummary(summary: ReplaySummary, title: string, label: string): string {
  const base = summary.bestSingle.cost;
  const row = (score: PolicyScore): string => fmtRow(score, base, summary.policy.wait ? summary.waitWorth : undefined);
  const lines = [
    `rung replay: ${summary.items} prompts, ${title}${waitTitle(summary.waitWorth)}`,
    '',
    ...policyTable(
      [
        [
          `${label} (${summary.policy.attempts} attempts${summary.policy.unroutable ? `, ${summary.policy.unroutable} unroutable` : ''})`,
          row(summary.policy),
        ],
        [`best single (${summary.bestSingle.model})`, row(summary.bestSingle)],
        ['price-order cascade', row(summary.priceOrderCascade)],
        ['oracle', row(summary.oracle)],
        [`simple online learner (${summary.onlineLearner.attempts} attempts)`, row(summary.onlineLearner)],
      ],
      summary.policy.wait !== undefined,
    ),
    verdictAgainstLearner(summary.policy, summary.onlineLearner, label),
    '',
    'rank correlation with true accuracy, per class:  ratings   naive ok/graded',
    ...summary.rankCorrelation.map(
      (entry) =>
        `  ${entry.class.padEnd(28)} ${entry.rho.toFixed(3).padStart(14)} ${entry.naiveRho.toFixed(3).padStart(10)}   (${entry.models} models)`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

/** One line saying whether the policy beat the simple learner: as accurate or more, and no dearer. */
export function verdictAgainstLearner(
  policy: { accuracy: number; cost: number },
  learner: { accuracy: number; cost: number },
  label = 'rung',
): string {
  const accuracy = policy.accuracy - learner.accuracy;
  const cost = learner.cost > 0 ? (100 * (policy.cost - learner.cost)) / learner.cost : 0;
  const beats = accuracy >= 0 && policy.cost <= learner.cost;
  const detail = `accuracy ${accuracy >= 0 ? '+' : ''}${accuracy.toFixed(4)}, cost ${cost >= 0 ? '+' : ''}${cost.toFixed(1)}%`;
  return `${label} against the simple learner: ${beats ? 'beats it' : 'does not beat it'} (${detail})`;
}

/**
 * One policy's figures: accuracy, cost and its share of the best single model's; with `waitWorth` (a run
 * whose outcomes are timed) also the wait to an accepted answer, mean and 90th percentile, and the cost
 * with every call's wait valued at that worth. A policy the wait was not tallied for shows dashes there.
 */
function fmtRow(score: { accuracy: number; cost: number; wait?: WaitScore }, base: number, waitWorth?: number): string {
  const money = ` ${score.accuracy.toFixed(4).padStart(8)} ${score.cost.toFixed(3).padStart(9)}   ${share(score.cost, base).padStart(8)}`;
  if (waitWorth === undefined) return money;
  const wait = score.wait;
  if (!wait) return `${money}   ${'-'.padStart(20)} ${'-'.padStart(6)} ${'-'.padStart(12)}`;
  return `${money}   ${seconds(wait.meanMs).padStart(20)} ${seconds(wait.p90Ms).padStart(6)} ${valuedCost(score.cost, wait, waitWorth).toFixed(3).padStart(12)}`;
}

/** Milliseconds as seconds, two decimals: `0.42 s`. */
function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

function formatAggregate(aggregate: Aggregate, title: string, label: string): string {
  const base = aggregate.bestSingle.cost;
  const m = aggregate.mean.policy;
  const worth = m.wait ? aggregate.waitWorth : undefined;
  const lines = [
    `rung replay: ${aggregate.items} prompts, ${title}${waitTitle(aggregate.waitWorth)}, seeds ${aggregate.seeds.join(',')}`,
    '',
    ...policyTable(
      [
        [`${label} (mean of ${aggregate.seeds.length})`, fmtRow(m, base, worth)],
        [
          '  spread (sd)',
          ` ${aggregate.sd.policy.accuracy.toFixed(4).padStart(8)} ${aggregate.sd.policy.cost.toFixed(3).padStart(9)}   ${share(aggregate.sd.policy.cost, base).padStart(8)}`,
        ],
        [`best single (${aggregate.bestSingle.model})`, fmtRow(aggregate.bestSingle, base, worth)],
        ['price-order cascade', fmtRow(aggregate.mean.priceOrderCascade, base, worth)],
        ['oracle', fmtRow(aggregate.oracle, base, worth)],
        ['simple online learner (mean)', fmtRow(aggregate.mean.onlineLearner, base, worth)],
      ],
      m.wait !== undefined,
    ),
    verdictAgainstLearner(m, aggregate.mean.onlineLearner, label),
    '',
    'mean rank correlation with true accuracy, per class:  ratings   naive ok/graded',
    ...aggregate.rankCorrelation.map(
      (entry) => `  ${entry.class.padEnd(28)} ${entry.rho.toFixed(3).padStart(19)} ${entry.naiveRho.toFixed(3).padStart(10)}`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}
