/**
 * `rung rank`: what the router would do for one request against a panel, and why — from a terminal,
 * without calling any model.
 */
import { existsSync } from 'node:fs';
import { shaped } from '../core/classKey';
import { seededRandom } from '../core/random';
import { MemoryDecisionSink } from '../core/decisions/decision';
import { Router } from '../core/routing/router';
import { EXIT_OK, UsageError, type CliIo } from './io';
import { commandPanel, PANEL_FLAG_DESCRIPTION } from './panelOption';
import { cliStoreLocation, type StoreOpener } from './cliStore';
import { openStore as openCoreStore } from '../core/store/openStore';
import type { Store } from '../core/store/store';
import { parseCommandArgs, type CommandUsage } from './usage';

export const RANK_COMMAND = {
  name: 'rung rank',
  summary: 'Shows what the router would do for one request against a panel, and why, without calling any model.',
  flags: {
    panel: { type: 'string', value: 'FILE', description: PANEL_FLAG_DESCRIPTION },
    class: { type: 'string', value: 'CLASS', description: 'the class of request: plan, chat, edit, leaf or your own' },
    shape: {
      type: 'string',
      value: 'SHAPE',
      description: 'a finer shape within the class (edit --shape typescript ranks edit/typescript)',
    },
    tools: { type: 'boolean', default: false, description: 'the request needs tool calls: prune models without them' },
    context: { type: 'string', value: 'TOKENS', description: "the request's size in tokens: prune models whose context is smaller" },
    pinned: { type: 'string', value: 'SLUG', description: 'a model the user picked: it opens, the rest stay as fallbacks' },
    avoid: { type: 'string', value: 'SLUG', description: 'a model to keep off the opener' },
    ledger: {
      type: 'string',
      value: 'FILE|URL',
      description:
        'rank from the ratings in this ledger or team server (postgres://…), read-only: nothing is written or migrated (without it: the priors)',
    },
    json: { type: 'boolean', default: false, description: 'print the ranking as one JSON object' },
  },
  required: ['class'],
} as const satisfies CommandUsage;

export async function rankCommand(argv: string[], io: CliIo, openStore?: StoreOpener): Promise<number> {
  const { values } = parseCommandArgs(RANK_COMMAND, argv);
  // Blank too: a class of spaces reached shaped() and failed as a run-time error, exit 1.
  if (!values.class?.trim()) throw new UsageError('missing --class CLASS (plan, chat, edit, leaf or your own)');
  const panel = await commandPanel(values.panel, io, RANK_COMMAND.name);
  if (values.context !== undefined && !/^\d+$/.test(values.context))
    throw new UsageError(`--context must be a whole number of tokens, not "${values.context}"`);
  // A pin or avoid naming no panel model is a mistyped flag (exit 2), not a routing failure.
  for (const flag of ['pinned', 'avoid'] as const) {
    const slug = values[flag];
    if (slug !== undefined && !panel.models.some((model) => model.slug === slug))
      throw new UsageError(`--${flag} ${slug}: no model of that slug on the panel (${panel.models.map((model) => model.slug).join(', ')})`);
  }

  const location = cliStoreLocation(values.ledger, io, 'memory');
  let store: Store;
  if (location.kind === 'memory') store = await openCoreStore(location, { clock: io.clock, log: () => {} });
  else {
    if (!openStore) throw new UsageError('--ledger is not available in this build');
    // rank changes nothing, on disk included; a ledger that is not there is a mistyped path, not a cold start.
    if (location.kind === 'file' && !existsSync(location.path)) throw new UsageError(`no ledger at ${location.path}`);
    store = await openStore(location, io, { readOnly: true });
  }
  try {
    const router = new Router({ panel, ledger: store.ratings, clock: io.clock, sink: new MemoryDecisionSink(), random: seededRandom(0) });
    const ranking = router.rank({
      callId: 'rank',
      classKey: shaped(values.class, values.shape),
      needsTools: values.tools,
      contextTokens: values.context === undefined ? undefined : Number(values.context),
      pinned: values.pinned,
      avoid: values.avoid,
      verifiable: true,
    });
    if (values.json) {
      io.stdout(
        `${JSON.stringify({
          class: ranking.classKey,
          candidates: ranking.candidates.map((c) => ({
            model: c.slug,
            provider: c.provider,
            tier: c.tier,
            ability: c.ability,
            graded: c.graded,
            cost: c.cost,
            reason: c.reason,
          })),
          pruned: ranking.pruned.map(({ model, reason }) => ({ model, reason })),
        })}\n`,
      );
    } else {
      const lines = [`rung rank: class ${ranking.classKey}`, ''];
      if (ranking.candidates.length === 0) lines.push('no candidate can take this call');
      ranking.candidates.forEach((c, i) => {
        const cost = c.cost === null ? 'price unknown' : `$${c.cost.toPrecision(3)}/call`;
        lines.push(
          `${String(i + 1).padStart(2)}. ${c.slug.padEnd(32)} ${c.provider.padEnd(12)} ability ${c.ability.toFixed(2)}  ${cost.padEnd(16)} ${c.reason}`,
        );
      });
      if (ranking.pruned.length) {
        lines.push('', 'pruned:');
        // Under that heading, the cause alone: `needs tools`, not `pruned: needs tools`.
        for (const p of ranking.pruned) lines.push(`    ${p.model.padEnd(32)} ${p.cause ?? p.reason}`);
      }
      io.stdout(`${lines.join('\n')}\n`);
    }
  } finally {
    await store.close();
  }
  return EXIT_OK;
}
