/**
 * What a caller of Rung Auto through the Language Model API may ask of Rung in `modelOptions.rung`: a
 * class key, a JSON Schema the answer must meet, a conversation id.
 *
 * @remarks
 * No vscode here, so what a caller is told about a malformed value is unit-tested.
 */
import * as z from 'zod';
import { describePanelIssues } from '../../core/panelIssues';
import { schemaProblems } from '../../core/session/callChecks';
import { PlainError } from './plainErrors';

/**
 * What a caller may ask of Rung in `modelOptions.rung`.
 *
 * @remarks
 * A schema the check cannot read is the caller's error, thrown back with the rest of a malformed
 * request, rather than a check every model fails and is graded down for.
 */
const rungModelOptions = z.looseObject({
  classKey: z.string().min(1).optional(),
  schema: z
    .unknown()
    .optional()
    .superRefine((schema, context) => {
      if (schema === undefined) return;
      for (const problem of schemaProblems(schema)) context.addIssue({ code: 'custom', message: problem });
    }),
  conversationId: z.string().optional(),
});

export type RungModelOptions = z.infer<typeof rungModelOptions>;

/**
 * `modelOptions.rung` as Rung reads it; a value of the wrong shape throws a {@link PlainError} that
 * names each field and what it must be, in the words Rung uses for its panel (not zod's "Invalid input").
 */
export function readRungModelOptions(value: unknown): RungModelOptions {
  const asked = rungModelOptions.safeParse(value ?? {});
  if (asked.success) return asked.data;
  const said = describePanelIssues(asked.error.issues, rungModelOptions, value);
  throw new PlainError(`The modelOptions.rung given to Rung is malformed: ${said.join('; ')}`);
}
