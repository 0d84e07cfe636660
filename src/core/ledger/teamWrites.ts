/**
 * Every write Rung makes to a team's server: a flush's batch (observations, aliases, calls in flight,
 * shared decision rows), a reset, and an import of a workspace file's own evidence.
 *
 * @remarks
 * Every insert is keyed on where its row came from and does nothing on a conflict, so a batch sent again
 * after a connection dropped mid-commit (when nobody can know whether the commit landed) adds nothing.
 * Writes that number observations, or mark the numbers a reset forgets, first take a lock on the table
 * that serialises writers (readers go on): a batch's ids are drawn and committed before the next writer
 * draws any, so no row ever appears below an id a reader has passed, which is what lets the fold read
 * only the rows above the last one it saw (teamFold.ts).
 */
import type { PoolClient } from 'pg';
import type { RatingEntry, Spawn } from './ledger';
import type { LedgerOp, LedgerState } from './ledgerState';
import type { OutboxDecision, OutboxEntry } from './teamOutbox';

/** What one flush sends, in one transaction. */
export interface Batch {
  /** Each observation with the key that makes sending it twice harmless. */
  observations: OutboxEntry[];
  aliases: Map<string, string>;
  spawnStarts: Spawn[];
  spawnEnds: string[];
  /** Decision rows to share, each under its member; empty unless the member opted in. */
  decisions: OutboxDecision[];
}

export function emptyBatch(): Batch {
  return { observations: [], aliases: new Map(), spawnStarts: [], spawnEnds: [], decisions: [] };
}

/** Whether a batch holds nothing to send. */
export function isEmptyBatch(batch: Batch): boolean {
  return (
    batch.observations.length === 0 &&
    batch.aliases.size === 0 &&
    batch.spawnStarts.length === 0 &&
    batch.spawnEnds.length === 0 &&
    batch.decisions.length === 0
  );
}

/** `first` then `second`, as one batch; for a failed batch going back in front of what was queued since. */
export function joinBatches(first: Batch, second: Batch): Batch {
  return {
    observations: [...first.observations, ...second.observations],
    aliases: new Map([...first.aliases, ...second.aliases]),
    spawnStarts: [...first.spawnStarts, ...second.spawnStarts],
    spawnEnds: [...first.spawnEnds, ...second.spawnEnds],
    decisions: [...first.decisions, ...second.decisions],
  };
}

/** The local operations a queued batch stands for, to show on top of the server's state until it lands. */
export function opsOf(batch: Batch): LedgerOp[] {
  return [
    ...batch.observations.map((item): LedgerOp => ({ kind: 'observe', observation: item.observation })),
    ...[...batch.aliases].map(([slug, resolved]): LedgerOp => ({ kind: 'alias', slug, resolved })),
    ...batch.spawnStarts.map((spawn): LedgerOp => ({ kind: 'spawn-start', spawn })),
    ...batch.spawnEnds.map((spawnId): LedgerOp => ({ kind: 'spawn-end', spawnId, at: 0 })),
  ];
}

/** Writes one batch inside the caller's transaction; aliases and calls in flight under `memberId`, the rest under the member each names. */
export async function writeBatch(client: PoolClient, memberId: string, batch: Batch): Promise<void> {
  if (batch.observations.length > 0) {
    // Serialises writers (readers go on): see the module's remarks.
    await client.query('LOCK TABLE rung_observations IN SHARE ROW EXCLUSIVE MODE');
    await client.query(
      `INSERT INTO rung_observations (member_id, origin, model, class_key, graded_at, observation)
       SELECT member_id, origin, model, class_key, graded_at, observation
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::jsonb[]) WITH ORDINALITY AS t(member_id, origin, model, class_key, graded_at, observation, position)
       ORDER BY position
       ON CONFLICT (member_id, origin) DO NOTHING`,
      [
        batch.observations.map((item) => item.member),
        batch.observations.map((item) => item.origin),
        batch.observations.map((item) => item.observation.model),
        batch.observations.map((item) => item.observation.classKey),
        batch.observations.map((item) => Math.round(item.observation.at)),
        batch.observations.map((item) => JSON.stringify(item.observation)),
      ],
    );
  }
  if (batch.aliases.size > 0) {
    await client.query(
      `INSERT INTO rung_aliases (slug, resolved, member_id)
       SELECT slug, resolved, $1 FROM unnest($2::text[], $3::text[]) AS t(slug, resolved)
       ON CONFLICT (slug) DO UPDATE SET resolved = EXCLUDED.resolved, member_id = EXCLUDED.member_id, updated_at = now()`,
      [memberId, [...batch.aliases.keys()], [...batch.aliases.values()]],
    );
  }
  if (batch.spawnStarts.length > 0) {
    await client.query(
      `INSERT INTO rung_spawns (spawn_id, trace_id, model, member_id)
       SELECT spawn_id, trace_id, model, $1 FROM unnest($2::text[], $3::text[], $4::text[]) AS t(spawn_id, trace_id, model)
       ON CONFLICT (spawn_id) DO NOTHING`,
      [
        memberId,
        batch.spawnStarts.map((spawn) => spawn.spawnId),
        batch.spawnStarts.map((spawn) => spawn.traceId),
        batch.spawnStarts.map((spawn) => spawn.model),
      ],
    );
  }
  if (batch.spawnEnds.length > 0) {
    await client.query('UPDATE rung_spawns SET ended_at = now() WHERE spawn_id = ANY($1::text[]) AND ended_at IS NULL', [batch.spawnEnds]);
  }
  if (batch.decisions.length > 0) {
    // A row's attempt is how many models the call had tried before it; with the call, whether it is the
    // settling `final` row, and its time, that names the row, so a resent batch adds nothing.
    // Each row under the member who shared it: a row from the outbox may predate a change of RUNG_MEMBER.
    await client.query(
      `INSERT INTO rung_decisions (member_id, call_id, attempt, final, at, decision)
       SELECT member_id, call_id, attempt, final, at, decision
       FROM unnest($1::text[], $2::text[], $3::integer[], $4::boolean[], $5::bigint[], $6::jsonb[]) AS t(member_id, call_id, attempt, final, at, decision)
       ON CONFLICT DO NOTHING`,
      [
        batch.decisions.map((entry) => entry.member),
        batch.decisions.map((entry) => entry.decision.call),
        batch.decisions.map((entry) => entry.decision.escalation.length),
        batch.decisions.map((entry) => entry.decision.final),
        batch.decisions.map((entry) => Math.round(entry.decision.at)),
        batch.decisions.map((entry) => JSON.stringify(entry.decision)),
      ],
    );
  }
}

/** SQL true when `class_key` is the class in `$1` or one of its shapes (`edit` matches `edit/typescript`). */
const CLASS_MATCHES_PARAMETER = `(class_key = $1 OR left(class_key, length($1) + 1) = $1 || '/')`;

/**
 * Marks every observation so far as forgotten, of one class and its shapes or of all, inside the
 * caller's transaction, and drops the imports of that class.
 *
 * @remarks
 * The observations stay on the server (the reset row names the highest id it forgets), so an outbox
 * sending one of them again cannot bring it back. The writers' lock makes "every observation so far"
 * exact: none is being numbered while the highest id is read.
 */
export async function writeReset(client: PoolClient, memberId: string, classKey: string | undefined): Promise<void> {
  await client.query('LOCK TABLE rung_observations IN SHARE ROW EXCLUSIVE MODE');
  await client.query('INSERT INTO rung_resets (class_key, up_to, member_id) SELECT $1, coalesce(max(id), 0), $2 FROM rung_observations', [
    classKey ?? null,
    memberId,
  ]);
  await client.query(`DELETE FROM rung_imports WHERE $1::text IS NULL OR ${CLASS_MATCHES_PARAMETER}`, [classKey ?? null]);
}

/**
 * A workspace file's own evidence: each of its ratings less the counts it merged from a source in `known`
 * (this team, or a ledger the team has already imported); ratings left with nothing are dropped.
 *
 * @remarks
 * A file's rating is one number over all it saw; it is kept as the rating of the file's own part, the
 * same approximation a merge of two files makes.
 */
export function ownEvidence(source: LedgerState, known: ReadonlySet<string>): RatingEntry[] {
  const own: RatingEntry[] = [];
  for (const entry of source.ratings.values()) {
    let graded = entry.graded;
    let ok = entry.ok;
    for (const count of source.merged.values()) {
      if (count.model !== entry.model || count.classKey !== entry.classKey || !known.has(count.sourceId)) continue;
      graded -= count.graded;
      ok -= count.ok;
    }
    if (graded > 0) own.push({ ...entry, graded, ok: Math.min(graded, Math.max(0, ok)) });
  }
  return own;
}

/**
 * Records `own` under the file's ledger id inside the caller's transaction, keeping the larger count when
 * the same file comes again, and fills the team's alias gaps from the file's; returns how many graded
 * observations the team did not already hold.
 */
export async function writeImport(client: PoolClient, memberId: string, source: LedgerState, own: readonly RatingEntry[]): Promise<number> {
  let added = 0;
  const previous = await client.query<{ model: string; class_key: string; graded: number }>(
    'SELECT model, class_key, graded FROM rung_imports WHERE source_id = $1 FOR UPDATE',
    [source.ledgerId],
  );
  const had = new Map(previous.rows.map((row) => [`${row.model}\u0000${row.class_key}`, row.graded]));
  for (const entry of own) added += Math.max(0, entry.graded - (had.get(`${entry.model}\u0000${entry.classKey}`) ?? 0));
  if (own.length === 0) return added;
  // A file reset since its last import has fewer counts: it adds nothing until it passes them, as a merge does.
  await client.query(
    `INSERT INTO rung_imports (source_id, model, class_key, graded, ok, rating, updated_at, member_id)
     SELECT $1, model, class_key, graded, ok, rating, updated_at, $2
     FROM unnest($3::text[], $4::text[], $5::integer[], $6::integer[], $7::double precision[], $8::bigint[]) AS t(model, class_key, graded, ok, rating, updated_at)
     ON CONFLICT (source_id, model, class_key) DO UPDATE
       SET graded = EXCLUDED.graded, ok = EXCLUDED.ok, rating = EXCLUDED.rating, updated_at = EXCLUDED.updated_at, member_id = EXCLUDED.member_id, imported_at = now()
       WHERE EXCLUDED.graded > rung_imports.graded`,
    [
      source.ledgerId,
      memberId,
      own.map((entry) => entry.model),
      own.map((entry) => entry.classKey),
      own.map((entry) => entry.graded),
      own.map((entry) => entry.ok),
      own.map((entry) => entry.rating),
      own.map((entry) => Math.round(entry.updatedAt)),
    ],
  );
  const aliases = [...source.aliases];
  if (aliases.length > 0) {
    // The team's own aliases are newer news than a file's: an import only fills gaps.
    await client.query(
      `INSERT INTO rung_aliases (slug, resolved, member_id) SELECT slug, resolved, $1 FROM unnest($2::text[], $3::text[]) AS t(slug, resolved) ON CONFLICT (slug) DO NOTHING`,
      [memberId, aliases.map(([slug]) => slug), aliases.map(([, resolved]) => resolved)],
    );
  }
  return added;
}
