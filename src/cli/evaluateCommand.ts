/**
 * `rung evaluate --log DECISIONS --policy SPEC`: what another routing policy would have cost per call,
 * and how often its first answer would have passed, estimated from the user's own decision log.
 *
 * @remarks
 * When the log cannot support an estimate the command prints no number, says why, and exits 1: a
 * script that reads the JSON must not mistake a refusal for a figure.
 */
import { estimatePolicy, type EstimateMethod, type PolicyEstimate } from '../core/evaluation/estimate';
import { readLoggedCalls } from '../core/evaluation/loggedCalls';
import { parsePolicy } from '../core/evaluation/policy';
import { EXIT_FAILED, EXIT_OK, readUserFile, UsageError, type CliIo } from './io';
import { parseCommandArgs, type CommandUsage } from './usage';

export const EVALUATE_COMMAND = {
  name: 'rung evaluate',
  summary:
    'Estimates what another routing policy would have cost per call, and how often its first answer would have passed, from a decision log.',
  flags: {
    log: {
      type: 'string',
      value: 'DECISIONS',
      description: 'the decision log to read (decisions.jsonl beside a ledger, or rung replay --decisions)',
    },
    policy: {
      type: 'string',
      value: 'SPEC',
      description:
        'the policy to estimate: open=MODEL (always open with MODEL, then climb as usual), optionally with skip=MODEL (never try it)',
    },
    json: {
      type: 'boolean',
      default: false,
      description:
        'print one JSON object: policy, calls, leftOut, effectiveSampleSize and per method (ips, snips, dr) cost, success and their 95% bounds',
    },
  },
  required: ['log', 'policy'],
  notes: [
    'Rows without a propensity (written before it was recorded) are left out and counted.',
    'When the log cannot support a number (it never opened with MODEL, or too few calls did) nothing is printed but the reason, and the exit code is 1.',
    "skip= is estimated beside an open=; skip= alone and explore= are refused (a row records only its own opener's chance) and checked with rung replay --policy, which runs them for real on recorded outcomes.",
  ],
} as const satisfies CommandUsage;

const METHOD_NAMES: Record<EstimateMethod, string> = {
  ips: 'inverse propensity (IPS)',
  snips: 'self-normalised (SNIPS)',
  dr: 'doubly robust (DR)',
};

export async function runEvaluateCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs(EVALUATE_COMMAND, argv);
  if (values.log === undefined) throw new UsageError('needs --log DECISIONS');
  if (values.policy === undefined) throw new UsageError('needs --policy SPEC');
  const policy = parsePolicy(values.policy);
  const log = readLoggedCalls(readUserFile(values.log, io, '--log'));
  // Not one decision row is another file named by mistake (the outcomes, a panel, a gzip): that is bad
  // input, where "the log holds no call with a propensity" and exit 1 sent the user looking for a logging fault.
  if (log.calls.length === 0 && log.withoutPropensity === 0 && log.unreadable > 0) {
    throw new UsageError(
      `--log ${values.log} holds no decision rows (${log.unreadable} line${log.unreadable === 1 ? '' : 's'}, none of them one): name a decision log, decisions.jsonl beside a ledger or a file rung replay --decisions wrote`,
    );
  }
  if (log.unreadable)
    io.stderr(
      `rung evaluate: ${log.unreadable} line${log.unreadable === 1 ? ' of the log is not a decision row' : 's of the log are not decision rows'}; skipped\n`,
    );
  const estimate = estimatePolicy(log, policy);
  if (values.json) {
    const { policy: spec, calls, leftOut, effectiveSampleSize, methods, refused } = estimate;
    io.stdout(`${JSON.stringify({ policy: spec, calls, leftOut, effectiveSampleSize, ...(methods ? { methods } : { refused }) })}\n`);
  } else if (estimate.methods) {
    io.stdout(formatEstimate(estimate));
  } else {
    io.stderr(`rung evaluate: no estimate for ${estimate.policy}: ${estimate.refused}\n`);
  }
  return estimate.methods ? EXIT_OK : EXIT_FAILED;
}

function formatEstimate(estimate: PolicyEstimate): string {
  const methods = estimate.methods as Record<
    EstimateMethod,
    { cost: number; costLow: number; costHigh: number; success: number; successLow: number; successHigh: number }
  >;
  const usd = (x: number) => `$${x.toPrecision(3)}`;
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const lines = [
    `rung evaluate: ${estimate.policy}, from ${estimate.calls} logged call${estimate.calls === 1 ? '' : 's'}` +
      (estimate.leftOut ? `; ${estimate.leftOut} more left out: no propensity` : '') +
      (estimate.unsupported ? `; ${estimate.unsupported} more left out: the opener was not a candidate` : ''),
    `${estimate.matching} opened as the policy would; worth ${estimate.effectiveSampleSize.toFixed(1)} calls once weighed`,
    '',
    'method                      cost per call (95%)                   first-try success (95%)',
    ...(Object.keys(METHOD_NAMES) as EstimateMethod[]).map((method) => {
      const m = methods[method];
      return `${METHOD_NAMES[method].padEnd(28)}${`${usd(m.cost)} (${usd(m.costLow)} – ${usd(m.costHigh)})`.padEnd(38)}${pct(m.success)} (${pct(m.successLow)} – ${pct(m.successHigh)})`;
    }),
  ];
  const versus = estimate.versusLog;
  if (versus) {
    const signed = (x: number, unit: string) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}${unit}`;
    const plusMinus = (low: number, high: number, unit: string) => `±${((100 * (high - low)) / 2).toFixed(1)}${unit}`;
    lines.push(
      '',
      `against the calls as they were routed (${usd(versus.loggedCost)} a call, ${pct(versus.loggedSuccess)} first-try), by DR: ` +
        `cost ${signed(versus.costChange, '%')} (${plusMinus(versus.costChangeLow, versus.costChangeHigh, '%')}), ` +
        `first-try success ${signed(versus.successChange, ' points')} (${plusMinus(versus.successChangeLow, versus.successChangeHigh, ' points')})`,
    );
  }
  return `${lines.join('\n')}\n`;
}
