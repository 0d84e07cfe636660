/**
 * What a routed chat call is checked by, and what it is routed as: the rules every front end used to
 * restate for itself.
 *
 * @remarks
 * A schema makes a call a `plan` (it asks for structured output) and asks the provider for JSON;
 * otherwise a call is `chat`. Code syntax is checked for the `edit` class and its shapes, by class and
 * not by prefix (`editor` is a class of its own). A call is verifiable, and so may explore, when any
 * check applies.
 */
import { shaped, splitClassKey } from '../classKey';
import type { ChatMessage } from '../providers/provider';
import { AllVerifiers } from '../verifiers/allVerifiers';
import { CodeSyntaxVerifier } from '../verifiers/codeSyntaxVerifier';
import { CommandVerifier } from '../verifiers/commandVerifier';
import { StructuredOutputVerifier } from '../verifiers/structuredOutputVerifier';
import type { Verifier } from '../verifiers/verifier';
import type { CallChecks } from './types';

/**
 * Whether a caller's schema is one the structured-output check can read, here so a front end asks it of
 * the session's rules rather than of the verifiers: the CLI refuses a bad `--schema` file as a usage
 * error and the model picker as a malformed request, both before `chat`, which refuses it too.
 */
export { InvalidSchemaError, schemaProblems } from '../verifiers/jsonSchema';

/** The class key a call is routed as: the one asked for, or `plan` with a schema and `chat` without. */
export function inferClassKey(classKey: string | undefined, checks: CallChecks | undefined): string {
  if (classKey !== undefined && classKey !== 'infer') return shaped(classKey);
  return checks?.schema !== undefined ? 'plan' : 'chat';
}

export interface CallVerification {
  verifier: Verifier;
  /** Whether any check applies: exploration happens only on such calls. */
  verifiable: boolean;
}

/**
 * The checks a call gets: the schema, code syntax for edits (unless the front end checks the edit in
 * its file and says `answerSyntax: false`), the workspace command, and any a front end brings. The command gets `environment` less every key (`secrets` too), which it also scrubs
 * from what it prints.
 */
export function callVerification(classKey: string, checks: CallChecks | undefined, environment: Record<string, string | undefined>, secrets: readonly string[]): CallVerification {
  const verifiers: Verifier[] = [];
  if (checks?.schema !== undefined) verifiers.push(new StructuredOutputVerifier({ schema: checks.schema }));
  if (splitClassKey(classKey).cls === 'edit' && checks?.answerSyntax !== false) verifiers.push(new CodeSyntaxVerifier());
  const command = checks?.command;
  if (command) {
    verifiers.push(
      new CommandVerifier({
        command: command.command,
        cwd: command.cwd,
        env: command.env ?? environment,
        secrets,
        ...(command.timeoutMs !== undefined ? { timeoutMs: command.timeoutMs } : {}),
        ...(command.onProgress ? { onProgress: command.onProgress } : {}),
      }),
    );
  }
  verifiers.push(...(checks?.extra ?? []));
  return { verifier: new AllVerifiers({ verifiers }), verifiable: verifiers.length > 0 };
}

/**
 * Whether the confidence check may judge a call: only where nothing else can.
 *
 * @remarks
 * The seam between the checks inferred from a request and the confidence check. Any check in
 * {@link callVerification} (a schema, code syntax, a command, one a front end brings, and every check
 * inferred from the request as those are added there) judges the answer better than the model's own
 * word, and so does a check on a call that offers tools or asks the provider for JSON, which this
 * function leaves to those checks even before they exist: a tool call or a JSON document is not an
 * answer a "Y or N" question about its truth can weigh.
 */
export function confidenceMayJudge(verification: CallVerification, call: { tools: readonly unknown[]; json?: boolean }): boolean {
  return !verification.verifiable && call.tools.length === 0 && call.json !== true;
}

/** The messages a model is sent: with a schema, a system message asking for JSON that matches it comes first. */
export function messagesWithSchema(messages: readonly ChatMessage[], schema: unknown): ChatMessage[] {
  if (schema === undefined) return [...messages];
  return [{ role: 'system', content: `Answer with JSON only, matching this JSON Schema:\n${JSON.stringify(schema)}` }, ...messages];
}
