/**
 * The decision rows members shared with the team, read back for `rung ledger decisions --team`.
 *
 * @remarks
 * Sharing is a member's opt-in (`shareDecisions`); the rows go to the server with a flush's batch
 * (teamWrites.ts). Reading them never touches the fold: ranking needs no decision row.
 */
import type { Pool } from 'pg';
import { decisionRowSchema, LIVE_SOURCE, type DecisionRow } from '../decisions/decision';
import { checkout } from './teamPool';
import { DECISIONS_SCHEMA_VERSION } from './teamSchema';

/** A decision row shared with the team, as `rung ledger decisions --team` lists it. */
export interface SharedDecision {
  member: string;
  row: DecisionRow;
}

/**
 * The team's shared decision rows, oldest first, at most `limit` of the newest (of those from `source`,
 * when given), and how many of those newest were not rows this Rung can read; none on a server without
 * the table.
 *
 * @remarks
 * A row without a `source` reads as {@link LIVE_SOURCE}, and here that is exact: rows were first shared
 * after `rung replay` had begun marking its own, so no unmarked replay row is on a server.
 */
export async function readSharedDecisions(
  pool: Pool,
  limit: number,
  source: string | undefined,
): Promise<{ shared: SharedDecision[]; skipped: number }> {
  const client = await checkout(pool);
  try {
    const version = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM rung_schema');
    if ((version.rows[0]?.version ?? 0) < DECISIONS_SCHEMA_VERSION) {
      client.release();
      return { shared: [], skipped: 0 };
    }
    const rows = await client.query<{ member_id: unknown; decision: unknown }>(
      "SELECT member_id, decision FROM (SELECT member_id, decision, at, call_id, attempt, final FROM rung_decisions WHERE $2::text IS NULL OR coalesce(decision->>'source', $3) = $2 ORDER BY at DESC, member_id DESC, call_id DESC, attempt DESC, final DESC LIMIT $1) newest ORDER BY at, member_id, call_id, attempt, final",
      [limit, source ?? null, LIVE_SOURCE],
    );
    client.release();
    const shared = rows.rows.flatMap((row) => {
      const parsed = decisionRowSchema.safeParse(row.decision);
      return parsed.success && typeof row.member_id === 'string' ? [{ member: row.member_id, row: parsed.data }] : [];
    });
    return { shared, skipped: rows.rows.length - shared.length };
  } catch (error) {
    client.release(error instanceof Error ? error : true);
    throw error;
  }
}
