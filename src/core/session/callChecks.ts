/**
 * What a routed chat call is checked by, and what it is routed as: the rules every front end used to
 * restate for itself.
 *
 * @remarks
 * The checks come from three places, in this order: the caller's (a schema, a workspace command, a
 * front end's own verifiers), the class (code syntax for the `edit` class and its shapes, by class and
 * not by prefix: `editor` is a class of its own), and the request (inferredChecks.ts: JSON asked for, a
 * tool call needed, code asked for). The class is the caller's when it gives one, else `routedClass`'s.
 */
import { splitClassKey } from '../classKey';
import type { ChatMessage, ToolSpec } from '../providers/provider';
import { AllVerifiers } from '../verifiers/allVerifiers';
import { AnswerHasCodeVerifier } from '../verifiers/answerHasCodeVerifier';
import { CodeSyntaxVerifier } from '../verifiers/codeSyntaxVerifier';
import { CommandVerifier } from '../verifiers/commandVerifier';
import { JsonAnswerVerifier } from '../verifiers/jsonAnswerVerifier';
import { StructuredOutputVerifier } from '../verifiers/structuredOutputVerifier';
import { ToolCallVerifier } from '../verifiers/toolCallVerifier';
import type { Verifier } from '../verifiers/verifier';
import { inferChecks, routedClass, type InferredChecks } from './inferredChecks';
import type { CallChecks } from './types';

/**
 * Whether a caller's schema is one the structured-output check can read, here so a front end asks it of
 * the session's rules rather than of the verifiers: the CLI refuses a bad `--schema` file as a usage
 * error and the model picker as a malformed request, both before `chat`, which refuses it too.
 */
export { InvalidSchemaError, schemaProblems } from '../verifiers/jsonSchema';

/**
 * Removes the scratch copies of the workspace that runs now dead left behind, here so a front end that
 * runs a command check (`rung chat` as it starts) sweeps them through the session's rules.
 */
export { sweepDeadScratch } from '../verifiers/scratchFolders';

/** The request the checks are read from: what a front end sent besides its class and its checks. */
export interface CheckedRequest {
  /** The class the caller gave, if any (`'infer'` is none): only a given `edit` makes every answer need code. */
  classKey?: string;
  messages: readonly ChatMessage[];
  tools?: readonly ToolSpec[];
  /** The caller's JSON response format (`chatOptions.json`). */
  json?: boolean;
}

/** The class key a call is routed as: the one asked for, else what its request asks (`routedClass`). */
export function inferClassKey(request: CheckedRequest & { checks?: CallChecks }): string {
  return routedClass(request.classKey, request.checks, inferChecks(request));
}

export interface CallVerification {
  verifier: Verifier;
  /**
   * Whether a check applies that judges what the answer says, not only its form: exploration happens
   * only on such calls.
   *
   * @remarks
   * Exploring opens with a rung the plan would not have, to buy evidence, and the user gets that rung's
   * answer when the check passes it. Two checks judge too little to bet the answer on: a tool call's
   * arguments (checked on every call that offers tools, whatever was asked) and "an edit came with
   * code" (in a language no syntax check reads, the only check an edit gets). Nearly every answer passes
   * them, so an exploring opener's poor answer would stand, for evidence that says little. Nor does a
   * turn that has already acted explore: a step in the middle of an agent's work is no place to try a
   * different model. Such calls are still checked, graded and climbed.
   */
  verifiable: boolean;
  /** No check applies to the call at all: neither the caller's, nor its class's, nor one its request implies. */
  unchecked: boolean;
  /** A check may fail an answer given in text: any but the arguments of tool calls the request did not need. */
  textChecked: boolean;
  /** What the request implied, with why. */
  inferred: InferredChecks;
}

/**
 * The checks a call gets, in the order they run (a failure stops the rest, so the cheap ones come
 * first and the workspace command last): the caller's schema, else JSON when the request asks for it;
 * the tool calls; code in an edit; code syntax (unless the front end checks the edit in its file and
 * says `answerSyntax: false`); the workspace command; any a front end brings. The command gets
 * `environment` less every key (`secrets` too), which it also scrubs from what it prints. Without
 * `request`, nothing is read from a request, and `classKey` counts as the caller's.
 */
export function callVerification(
  classKey: string,
  checks: CallChecks | undefined,
  environment: Record<string, string | undefined>,
  secrets: readonly string[],
  request?: CheckedRequest,
): CallVerification {
  const tools = request?.tools ?? [];
  const inferred = inferChecks({ ...(request ?? { messages: [], classKey }), ...(checks ? { checks } : {}) });
  const { acted, text } = inferred.request;
  // Each check, and whether it judges what the answer says (see `verifiable`).
  const planned: { verifier: Verifier; judges: boolean; text?: false }[] = [];
  if (checks?.schema !== undefined) planned.push({ verifier: new StructuredOutputVerifier({ schema: checks.schema }), judges: true });
  else if (inferred.json !== undefined) planned.push({ verifier: new JsonAnswerVerifier(), judges: true });
  if (tools.length > 0)
    planned.push({
      verifier: new ToolCallVerifier({ tools, required: inferred.toolCall !== undefined }),
      judges: inferred.toolCall !== undefined,
      // Without a call needed, a text answer is "no tool call to check", never a failure.
      ...(inferred.toolCall === undefined ? { text: false as const } : {}),
    });
  if ((splitClassKey(classKey).cls === 'edit' || inferred.code !== undefined) && checks?.answerSyntax !== false) {
    if (inferred.needsCode !== undefined) planned.push({ verifier: new AnswerHasCodeVerifier(), judges: false });
    planned.push({ verifier: new CodeSyntaxVerifier({ fragments: true, quotedFrom: text }), judges: !shapedForUnreadable(classKey) });
  }
  const command = checks?.command;
  if (command) {
    const verifier = new CommandVerifier({
      command: command.command,
      cwd: command.cwd,
      env: command.env ?? environment,
      ...(command.allowEnv ? { allowEnv: command.allowEnv } : {}),
      secrets,
      ...(command.timeoutMs !== undefined ? { timeoutMs: command.timeoutMs } : {}),
      ...(command.onProgress ? { onProgress: command.onProgress } : {}),
    });
    planned.push({ verifier, judges: true });
  }
  for (const verifier of checks?.extra ?? []) planned.push({ verifier, judges: true });
  return {
    verifier: new AllVerifiers({ verifiers: planned.map((entry) => entry.verifier) }),
    verifiable: !acted && planned.some((entry) => entry.judges),
    unchecked: planned.length === 0,
    textChecked: planned.some((entry) => entry.text !== false),
    inferred,
  };
}

/** The languages the syntax check reads, as the shapes of `edit` (the editor's language ids). */
const READABLE_SHAPES = new Set(['typescript', 'typescriptreact', 'javascript', 'javascriptreact', 'json', 'jsonc']);

/** An `edit` shaped for a language the syntax check cannot read (`edit/python`): its syntax check judges nothing. */
function shapedForUnreadable(classKey: string): boolean {
  const { shape } = splitClassKey(classKey);
  return shape !== undefined && !READABLE_SHAPES.has(shape.toLowerCase());
}

/**
 * Whether the confidence check may judge a call: only where no other check applies.
 *
 * @remarks
 * The seam between the checks of {@link callVerification} and the confidence check. Every one of those
 * (a schema, JSON the request asks for or the caller's response format, the tool calls of a call that
 * offers tools, code in an edit and its syntax, a workspace command, one a front end brings) is a better
 * witness than the model's own word, and the confidence check takes the call's verifier and its climb
 * whole, so it comes in only where the list is empty: where it stays out, no check is dropped. Even a
 * check that judges little (code in an answer to an edit in a language no syntax check reads) keeps the
 * call, since a tool call, a JSON document or a patch is not an answer a "Y or N" question about its
 * truth can weigh.
 */
export function confidenceMayJudge(verification: CallVerification): boolean {
  return verification.unchecked;
}

/** The messages a model is sent: with a schema, a system message asking for JSON that matches it comes first. */
export function messagesWithSchema(messages: readonly ChatMessage[], schema: unknown): ChatMessage[] {
  if (schema === undefined) return [...messages];
  return [{ role: 'system', content: `Answer with JSON only, matching this JSON Schema:\n${JSON.stringify(schema)}` }, ...messages];
}
