/**
 * `rung rank`: what the router would do for one request against a panel, and why — from a terminal,
 * without calling any model.
 */
import { resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { shaped } from '../core/classKey';
import { MemoryLedger } from '../core/ledger/memoryLedger';
import type { Ledger } from '../core/ledger/ledger';
import { seededRandom } from '../core/random';
import { MemoryDecisionSink } from '../core/decisions/decision';
import { Router } from '../core/routing/router';
import { readPanelFile, UsageError, type CliIo } from './io';
import type { LedgerOpener } from './replayCommand';

export const RANK_USAGE = `usage: rung rank --panel FILE --class CLASS [--shape SHAPE] [--tools] [--context TOKENS]
                 [--pinned SLUG] [--avoid SLUG] [--ledger FILE] [--json]`;

export async function rankCommand(argv: string[], io: CliIo, openLedger?: LedgerOpener): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      panel: { type: 'string' },
      class: { type: 'string' },
      shape: { type: 'string' },
      tools: { type: 'boolean', default: false },
      context: { type: 'string' },
      pinned: { type: 'string' },
      avoid: { type: 'string' },
      ledger: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (positionals.length) throw new UsageError(`rung rank takes no positional arguments (got ${positionals.join(' ')})`);
  if (!values.panel) throw new UsageError('rung rank needs --panel FILE');
  if (!values.class) throw new UsageError('rung rank needs --class (plan, chat, edit, leaf or your own)');
  const panel = readPanelFile(values.panel, io);
  if (values.context !== undefined && !/^\d+$/.test(values.context)) throw new UsageError(`--context must be a whole number of tokens, not "${values.context}"`);

  let ledger: Ledger = new MemoryLedger();
  if (values.ledger) {
    if (!openLedger) throw new UsageError('--ledger is not available in this build');
    // rank changes nothing, on disk included; a ledger that is not there is a mistyped path, not a cold start.
    const path = resolve(io.cwd, values.ledger);
    if (!existsSync(path)) throw new UsageError(`no ledger at ${path}`);
    ledger = await openLedger(path, io, { readOnly: true });
  }
  try {
    const router = new Router({ panel, ledger, clock: io.clock, sink: new MemoryDecisionSink(), random: seededRandom(0) });
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
          candidates: ranking.candidates.map((c) => ({ model: c.slug, provider: c.provider, tier: c.tier, ability: c.ability, graded: c.graded, cost: c.cost, reason: c.reason })),
          pruned: ranking.pruned,
        })}\n`,
      );
    } else {
      const lines = [`rung rank: class ${ranking.classKey}`, ''];
      if (ranking.candidates.length === 0) lines.push('no candidate can take this call');
      ranking.candidates.forEach((c, i) => {
        const cost = c.cost === null ? 'price unknown' : `$${c.cost.toPrecision(3)}/call`;
        lines.push(`${String(i + 1).padStart(2)}. ${c.slug.padEnd(32)} ${c.provider.padEnd(12)} ability ${c.ability.toFixed(2)}  ${cost.padEnd(16)} ${c.reason}`);
      });
      if (ranking.pruned.length) {
        lines.push('', 'pruned:');
        for (const p of ranking.pruned) lines.push(`    ${p.model.padEnd(32)} ${p.reason}`);
      }
      io.stdout(`${lines.join('\n')}\n`);
    }
  } finally {
    await ledger.close();
  }
  return 0;
}
