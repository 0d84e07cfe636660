/**
 * The shapes of the rows a team ledger reads from the server, checked before any is used: one member's
 * bad row is skipped and counted, never fatal to everyone else, and never folded into a rating.
 *
 * @remarks
 * Every member writes the team's tables with their own credentials, so every row read is some member's
 * word, and their Rung may be older, newer, broken, or not Rung at all. One `null` observation made every
 * member's open throw (`ledger reset` included, which could have mended it); one weight of `"x"` made a
 * rating NaN for good, since every later observation builds on it. So each row is read with a schema of
 * the fields Rung uses (zod, loose: fields a newer Rung adds pass) and the ones that do not fit are
 * dropped and counted per table, for the team ledger to say once. Numbers must be finite (zod refuses
 * NaN and Infinity, which PostgreSQL's double precision can hold); counts must be whole and not negative;
 * a call in flight must have started no later than the server's now.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { RATING_LIMIT_LOGITS, type Observation } from '../ratings';
import { MAX_LEDGER_COUNT } from './ledgerState';

/** The tables a refresh reads, as the counts of skipped rows name them. */
export type TeamTable = 'observations' | 'resets' | 'imports' | 'aliases' | 'spawns' | 'meta' | 'decisions';

/** A bigint column as pg gives it: decimal text. */
const bigintText = z.string().regex(/^-?\d{1,19}$/);

const difficultySchema = z.looseObject({
  mean: z.number(),
  sd: z.number().min(0),
  unanswerable: z.number().min(0).max(1).optional(),
});

/** An observation as a member's Rung writes it into `rung_observations.observation`. */
export const observationSchema = z.looseObject({
  model: z.string().min(1),
  classKey: z.string(),
  success: z.boolean(),
  at: z.number(),
  difficulty: difficultySchema.optional(),
  weight: z.number().min(0).max(1).optional(),
  prior: z.number().optional(),
});

export const observationRowSchema = z.looseObject({ id: bigintText, class_key: z.string().optional(), observation: z.unknown() });
export const resetRowSchema = z.looseObject({ id: bigintText, class_key: z.string().nullable(), up_to: bigintText });
/** An imported rating, held to the ranges a ledger file's rows are (see LedgerState.read): a rating of 1e300 times a billion graded made a merged rating Infinity. */
export const importRowSchema = z
  .looseObject({
    source_id: z.string().min(1),
    model: z.string().min(1),
    class_key: z.string(),
    graded: z.int().min(0).max(MAX_LEDGER_COUNT),
    ok: z.int().min(0),
    rating: z.number().min(-RATING_LIMIT_LOGITS).max(RATING_LIMIT_LOGITS),
    updated_at: bigintText,
  })
  .refine((row) => row.ok <= row.graded);
export const aliasRowSchema = z.looseObject({ slug: z.string().min(1), resolved: z.string().min(1) });
export const spawnRowSchema = z.looseObject({
  spawn_id: z.string().min(1),
  trace_id: z.string(),
  model: z.string().min(1),
  age_ms: bigintText,
});

/** No control character: C0, DEL and C1. */
// eslint-disable-next-line no-control-regex -- a team id holds no control character
const PLAIN_TEXT = /^[^\u0000-\u001f\u007f-\u009f]*$/;

/** The team id as `rung_meta` should hold it: a uuid Rung made, or any short plain text. */
const teamIdSchema = z.string().min(1).max(200).regex(PLAIN_TEXT);

/** The rows of `rows` that fit `schema`, parsed, and how many did not. */
export function validRows<T>(schema: z.ZodType<T>, rows: readonly unknown[]): { valid: T[]; skipped: number } {
  const valid: T[] = [];
  let skipped = 0;
  for (const row of rows) {
    const parsed = schema.safeParse(row);
    if (parsed.success) valid.push(parsed.data);
    else skipped++;
  }
  return { valid, skipped };
}

/** The observation a row holds, with only the fields Rung reads; undefined when it is not one. */
export function readObservation(value: unknown): Observation | undefined {
  const parsed = observationSchema.safeParse(value);
  if (!parsed.success) return undefined;
  const { model, classKey, success, at, difficulty, weight, prior } = parsed.data;
  return {
    model,
    classKey,
    success,
    at,
    ...(difficulty
      ? {
          difficulty: {
            mean: difficulty.mean,
            sd: difficulty.sd,
            ...(difficulty.unanswerable === undefined ? {} : { unanswerable: difficulty.unanswerable }),
          },
        }
      : {}),
    ...(weight === undefined ? {} : { weight }),
    ...(prior === undefined ? {} : { prior }),
  };
}

/**
 * The team's id from `rung_meta`, or, when the value there is not one Rung could have written (a member
 * rewrote it), a stand-in derived from it: the same for every member reading the same value, so files
 * that pull the team still agree on where their evidence came from.
 */
export function readTeamId(value: unknown): { id: string; usable: boolean } {
  const parsed = teamIdSchema.safeParse(value);
  if (parsed.success) return { id: parsed.data, usable: true };
  return {
    id: `derived-${createHash('sha256')
      .update(JSON.stringify(value ?? null))
      .digest('hex')
      .slice(0, 32)}`,
    usable: false,
  };
}

/** Skipped rows by table, as one clause: `2 observations and 1 import`. */
export function describeSkipped(skipped: Readonly<Partial<Record<TeamTable, number>>>): string {
  const names: Record<TeamTable, [string, string]> = {
    observations: ['observation', 'observations'],
    resets: ['reset', 'resets'],
    imports: ['import', 'imports'],
    aliases: ['alias', 'aliases'],
    spawns: ['call in flight', 'calls in flight'],
    meta: ['team id', 'team ids'],
    decisions: ['shared decision row', 'shared decision rows'],
  };
  const parts = (Object.keys(names) as TeamTable[])
    .filter((table) => (skipped[table] ?? 0) > 0)
    .map((table) => {
      const count = skipped[table] as number;
      return `${count} ${names[table][count === 1 ? 0 : 1]}`;
    });
  return parts.length <= 1 ? (parts[0] ?? 'no rows') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1) as string}`;
}
