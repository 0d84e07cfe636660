/**
 * "Rung Auto" and the panel's models in the editor's model picker, so the Chat view, inline chat
 * (Ctrl+I) and other extensions route through Rung.
 *
 * @remarks
 * Every request goes through `session.chat` like any other: routed, checked, escalated, recorded.
 * Text streams through as it arrives when no check can fail it (a plain question); when one can (JSON,
 * code, an edit), the text is held until it passes, so a failed attempt is never shown as part of the
 * answer: in the Chat view each rung asked and each failed check is said in a thinking part, which
 * the view folds away as it folds `@rung`'s steps. Tool calls are passed on from the answer that
 * stood, because inline chat applies an edit only when the model answers with its edit tool call, and
 * a tool call from an attempt that failed its check must not be acted on. A caller that needs a
 * checked answer (a JSON plan) says so in `modelOptions.rung` and gets only the answer that passed.
 *
 * The same request sent again unchanged (the Chat view's Retry under a Rung Auto answer) climbs past
 * the model that answered it, when a stronger rung is eligible (calls/featureCalls.ts). An inline chat
 * edit the user takes back, the file returning to its text before the edit, fails the call at the
 * weight of feedback (calls/feedback.ts). Inline chat shows no text beside an edit it applies, so a
 * notification says the edit's short line and what Undo counts as, and another says it once it did.
 */
import * as vscode from 'vscode';
import { basename } from 'node:path';
import type { ChatMessage, ToolCall, ToolSpec } from '../../core/providers/provider';
import { isLocal } from '../../core/providers/locality';
import type { SessionEvent } from '../../core/session/types';
import { answerFooter } from '../calls/answerLine';
import { askingLine } from '../calls/askingLine';
import { turnFooter } from '../calls/agentTurns';
import { inlineChatToolCall, saysClosingLine, withoutClosingLines } from '../calls/autoAnswer';
import { editTakenBackNotice, EditWatch, FEEDBACK_VERDICTS, inlineEditNotice } from '../calls/feedback';
import { systemClock } from '../../core/clock';
import type { FeatureCalls } from '../calls/featureCalls';
import { escalationCause, pickerPrice, verdictPhrase, type KnownPrice } from '../describe';
import { limitStoppedText, noAnswerText, plainError, PlainError } from '../calls/plainErrors';
import { readRungModelOptions } from '../calls/rungModelOptions';
import type { RungLog } from '../log';
import { AUTO_MODEL_ID, estimateTokens, pickerLimits, pinnedForModelId, RUNG_VENDOR } from './modelIds';
import type { SessionHost } from '../session/sessionHost';
import type { RungSettings } from '../settings/settings';

/** Context window Rung Auto declares when no panel model states one, tokens. */
const DEFAULT_CONTEXT_TOKENS = 32_768;

export interface ModelProviderDeps {
  sessions: SessionHost;
  settings: RungSettings;
  log: RungLog;
  /** How a feature asks the session: pin, avoid, climbs, recording and the log line. */
  calls: FeatureCalls;
}

export function registerModelProvider(context: vscode.ExtensionContext, deps: ModelProviderDeps): void {
  const changed = new vscode.EventEmitter<void>();
  const edits = new EditWatch(() => systemClock.now());
  const inlineEdits = new InlineEdits();
  const provider: vscode.LanguageModelChatProvider = {
    onDidChangeLanguageModelChatInformation: changed.event,
    provideLanguageModelChatInformation: () => modelList(deps.settings, pricesNow(deps.sessions)),
    provideLanguageModelChatResponse: (model, messages, options, progress, token) =>
      respond(deps, { edits, inlineEdits }, model, messages, options, progress, token),
    provideTokenCount: async (_model, text) => estimateTokens(typeof text === 'string' ? text : messageText(text)),
  };
  context.subscriptions.push(
    changed,
    vscode.lm.registerLanguageModelChatProvider(RUNG_VENDOR, provider),
    deps.settings.onDidChangePanel(() => changed.fire()),
    // The prices the catalog gave, and a panel found once Ollama started, are known once a session opens.
    deps.sessions.onDidOpen(() => changed.fire()),
    vscode.workspace.onDidChangeTextDocument((event) => {
      const callId = edits.changed(event.document.uri.toString(), event.document.getText());
      if (callId) void settleDiscarded(deps, callId, inlineEdits.take(callId));
    }),
  );
  // The editor resolves a provider's models lazily; asking once makes them appear in the picker.
  void Promise.resolve(vscode.lm.selectChatModels({ vendor: RUNG_VENDOR })).then(
    (models) => deps.log.info(`model picker: ${models.map((model) => model.name).join(', ') || 'no models yet'}`),
    (error: unknown) => deps.log.warn(`model picker: listing Rung's models failed: ${String(error)}`),
  );
}

/** An inline edit the user took back: the call failed in their eyes, at the weight of feedback, and they are told so. */
async function settleDiscarded(deps: ModelProviderDeps, callId: string, edit: InlineEdit | undefined): Promise<void> {
  if (edit) void vscode.window.showInformationMessage(editTakenBackNotice(edit.model, edit.file));
  const session = await deps.sessions.get();
  const known = session.settle(callId, FEEDBACK_VERDICTS.editDiscarded);
  deps.log.info(
    `feedback on ${callId}: failed at weight ${FEEDBACK_VERDICTS.editDiscarded.weight}, ${FEEDBACK_VERDICTS.editDiscarded.reason}${known ? '' : ' (the session no longer knew the call)'}`,
  );
}

/** An inline edit as its notices name it. */
interface InlineEdit {
  model: string;
  file: string;
}

/** The inline edits lately made, by call, for the notice when one is taken back; the oldest forgotten first. */
class InlineEdits {
  private readonly edits = new Map<string, InlineEdit>();

  add(callId: string, edit: InlineEdit): void {
    this.edits.set(callId, edit);
    while (this.edits.size > REMEMBERED_INLINE_EDITS) this.edits.delete(this.edits.keys().next().value as string);
  }

  take(callId: string): InlineEdit | undefined {
    const edit = this.edits.get(callId);
    this.edits.delete(callId);
    return edit;
  }
}

/** Inline edits remembered for their notice: a few more than the edits a user reviews at once. */
const REMEMBERED_INLINE_EDITS = 20;

/** What watches inline edits for being taken back, and names them when they are. */
interface InlineEditWatch {
  edits: EditWatch;
  inlineEdits: InlineEdits;
}

/** Each panel model's price as the open session knows it; none while no session is open. */
function pricesNow(sessions: SessionHost): KnownPrices {
  try {
    return sessions.current?.snapshot({ limit: 0 }).prices ?? [];
  } catch {
    return [];
  }
}

type KnownPrices = readonly (KnownPrice & { model: string })[];

/** Rung Auto first, then each panel model with its price, which opens the call when picked. */
function modelList(settings: RungSettings, prices: KnownPrices): vscode.LanguageModelChatInformation[] {
  const panel = settings.panel?.panel;
  const contexts = panel?.models.map((model) => model.context).filter((context): context is number => context !== undefined) ?? [];
  const auto: vscode.LanguageModelChatInformation = {
    id: AUTO_MODEL_ID,
    name: 'Rung Auto',
    family: 'rung-auto',
    version: '1',
    detail: 'routed',
    tooltip: 'Routes each request to the cheapest model that can do it, checks the answer, and climbs when the check fails.',
    ...pickerLimits(contexts.length ? Math.max(...contexts) : DEFAULT_CONTEXT_TOKENS),
    // Declared so Agent mode lists Rung; a request with tools is routed only to rungs that take tools.
    capabilities: { toolCalling: true },
  };
  const models = (panel?.models ?? []).map((model): vscode.LanguageModelChatInformation => {
    const price = pickerPrice(
      model,
      isLocal(panel?.providers[model.provider]),
      prices.find((known) => known.model === model.slug),
    );
    return {
      id: model.slug,
      name: `Rung: ${model.slug}`,
      family: model.slug,
      version: '1',
      detail: `${model.provider} · ${price}`,
      tooltip: `${model.slug} on ${model.provider}, ${price}, opens the call; the panel's later rungs stay as fallbacks.`,
      ...pickerLimits(model.context ?? DEFAULT_CONTEXT_TOKENS),
      capabilities: { toolCalling: model.tools !== false },
    };
  });
  return [auto, ...models];
}

/**
 * Answers one request from the editor; whatever goes wrong reaches the editor as one plain sentence
 * (calls/plainErrors.ts), and the Rung log keeps the error itself.
 */
async function respond(
  deps: ModelProviderDeps,
  edits: InlineEditWatch,
  model: vscode.LanguageModelChatInformation,
  messages: readonly vscode.LanguageModelChatRequestMessage[],
  options: vscode.ProvideLanguageModelChatResponseOptions,
  progress: vscode.Progress<vscode.LanguageModelResponsePart>,
  token: vscode.CancellationToken,
): Promise<void> {
  try {
    await answerRequest(deps, edits, model, messages, options, progress, token);
  } catch (error) {
    if (!(error instanceof PlainError))
      deps.log.warn(`${model.name}: no answer: ${error instanceof Error ? error.message : String(error)}`);
    throw plainError(error);
  }
}

async function answerRequest(
  deps: ModelProviderDeps,
  { edits, inlineEdits }: InlineEditWatch,
  model: vscode.LanguageModelChatInformation,
  messages: readonly vscode.LanguageModelChatRequestMessage[],
  options: vscode.ProvideLanguageModelChatResponseOptions,
  progress: vscode.Progress<vscode.LanguageModelResponsePart>,
  token: vscode.CancellationToken,
): Promise<void> {
  const session = await deps.sessions.get();
  const asked = readRungModelOptions((options.modelOptions as Record<string, unknown> | undefined)?.rung);
  const checked = asked.schema !== undefined;
  const picked = pinnedForModelId(model.id);
  const coreMessages = withoutClosingLines(toCoreMessages(messages));
  const tools = options.tools?.map(toToolSpec) ?? [];
  // Inline chat asks for an edit: a text answer there applies nothing, so it fails and the call climbs.
  const inlineEdit = inlineChatToolCall(coreMessages, tools);
  const closingLine = saysClosingLine({
    initiator: initiatorOf(options),
    checkedByCaller: checked || options.modelOptions?.rung !== undefined,
  });
  const call = deps.calls.prepare({
    feature: model.name,
    messages: coreMessages,
    ...(tools.length
      ? { tools, agentTools: deps.settings.agentTools, toolCallRequired: options.toolMode === vscode.LanguageModelChatToolMode.Required }
      : {}),
    ...(asked.classKey ? { classKey: asked.classKey } : {}),
    ...(checked || inlineEdit
      ? { checks: { ...(checked ? { schema: asked.schema } : {}), ...(inlineEdit ? { toolCall: inlineEdit } : {}) } }
      : {}),
    ...(asked.conversationId ? { conversationId: asked.conversationId } : {}),
    ...(picked ? { picked } : {}),
    // Rung Auto climbs on a repeat; a model picked by name opens every call, as the user asked (featureCalls.ts).
    climbWhenAskedAgain: true,
    cancellation: token,
  });
  // A call whose check may fail a text answer keeps its text until the verdict, so a failed attempt is
  // never shown as the answer; in the editor's chat the climb is said in a fold of its own meanwhile.
  let held = checked;
  let streamed = false;
  /** The asking line of the attempt under way, said before its first word when the answer streams to the editor's chat. */
  let asking: string | undefined;
  /** Each model's asking line, for a failed answer shown after the call. */
  const askedAs = new Map<string, string>();
  /** The text each attempt gave, by model: a failed answer is shown when a spending limit kept the call from climbing past it. */
  const texts = new Map<string, string>();
  const fold = closingLine ? foldedNote(progress) : undefined;
  const onEvent = (event: SessionEvent): void => {
    switch (event.type) {
      case 'routed':
        held = checked || event.textChecked === true;
        return;
      case 'rung-started':
        // Said with the attempt's first word, so a round that only calls tools (an agent's step) says nothing.
        asking = closingLine
          ? askingLine({ model: event.candidate.slug, local: event.candidate.local, price: event.price, checks: event.checks })
          : undefined;
        if (asking !== undefined) askedAs.set(event.candidate.slug, asking);
        if (held)
          fold?.(`${asking ?? `Asking ${event.candidate.slug}`} (rung ${event.attempt + 1}); its answer is shown once its check passes.`);
        return;
      case 'part':
        if (event.part.type !== 'text-delta' || !event.part.text) return;
        texts.set(event.model, (texts.get(event.model) ?? '') + event.part.text);
        if (!held) {
          if (asking !== undefined) progress.report(new vscode.LanguageModelTextPart(`${asking}\n\n`));
          asking = undefined;
          progress.report(new vscode.LanguageModelTextPart(event.part.text));
          streamed = true;
        }
        return;
      case 'escalated':
        if (held) fold?.(`${event.from} failed its check (${escalationCause(event)}).`);
        // Text already shown came from an answer that failed its check; say so before the next one.
        else if (streamed)
          progress.report(
            new vscode.LanguageModelTextPart(
              `\n\n---\n*Rung: ${event.from} failed its check (${escalationCause(event)}); ${event.to} answers instead.*\n\n`,
            ),
          );
        return;
      case 'skipped':
        if (held) fold?.(`${event.model} gave no answer (${verdictPhrase(event.verdict)}).`);
        return;
      default:
        return;
    }
  };
  // A Retry whose stronger model is down is answered by the ladder as before, after saying so.
  const finished = await call.run(session, onEvent, (sentence) =>
    progress.report(new vscode.LanguageModelTextPart(`*Rung: ${sentence}*\n\n`)),
  );
  const answer = finished.result.answer;
  if (!answer) {
    if (finished.stopped) return;
    // A failed answer a spending limit kept the call from climbing past is shown with why, in the
    // editor's chat: thrown, the Chat view would show the error in place of the answer.
    const last = finished.summary.kind === 'no-answer' ? finished.summary.last : undefined;
    const stoppedBy = closingLine && !checked ? limitStoppedText(last, finished.result.ranking.pruned) : undefined;
    const failedText = last ? texts.get(last.model) : undefined;
    if (stoppedBy !== undefined && failedText) {
      if (!streamed) {
        // Held until its verdict, the failed answer is shown now, under the line that named its model and check.
        const asked = last ? askedAs.get(last.model) : undefined;
        progress.report(new vscode.LanguageModelTextPart(asked !== undefined ? `${asked}\n\n${failedText}` : failedText));
      }
      progress.report(new vscode.LanguageModelTextPart(`\n\n---\n*Rung: ${markdownText(stoppedBy)}*`));
      return;
    }
    // Why, and what to do, in the editor's error box: a provider down, the budget spent, every check failed.
    throw new PlainError(
      noAnswerText(finished.summary.kind === 'no-answer' ? finished.summary.last : undefined, finished.result.ranking.pruned),
    );
  }
  let said = streamed;
  if (held || !streamed) {
    if (answer.text) progress.report(new vscode.LanguageModelTextPart(answer.text));
    said = said || answer.text !== '';
  }
  // The short line goes before any tool call, where an assistant's words go: the chat extension keeps
  // a turn's text and its tool calls apart (its agent loop goes on while a round has tool calls, and
  // inline chat acts on the calls alone), so the line neither stops an agent nor reaches an edit.
  // The step that ends an agent's turn (no tool call) says the turn: every step's models, checks and cost.
  if (closingLine && finished.summary.kind === 'answered') {
    const footer =
      finished.turn && answer.toolCalls.length === 0
        ? turnFooter(finished.turn, { retryClimbs: true })
        : answerFooter(finished.summary, { retryClimbs: true });
    progress.report(new vscode.LanguageModelTextPart(`${said ? '\n\n' : ''}${footer}`));
  }
  // Inline chat edits the active editor's file: watched from its text now, before the edit arrives.
  const document = vscode.window.activeTextEditor?.document;
  if (inlineEdit && answer.toolCalls.length > 0 && document) {
    edits.watch(document.uri.toString(), finished.result.callId, document.getText());
    inlineEdits.add(finished.result.callId, { model: answer.model, file: basename(document.fileName) });
    // Inline chat shows no text beside an edit: the model, checks, cost and what Undo counts as are said here.
    if (closingLine && finished.summary.kind === 'answered')
      void vscode.window.showInformationMessage(inlineEditNotice(answerFooter(finished.summary), answer.model));
  }
  for (const toolCall of answer.toolCalls) progress.report(toToolCallPart(toolCall));
}

/** Text shown as Markdown as it reads: a check's reason may hold backticks (a ```json block) that would open code. */
function markdownText(text: string): string {
  return text.replace(/[\\`*_[\]<>]/g, (character) => `\\${character}`);
}

/**
 * Reports lines to the editor's chat as a thinking part, which the Chat view folds away under the
 * answer as it folds `@rung`'s steps; undefined where the editor has no such part.
 *
 * @remarks
 * A language model provider can report text, tool calls, data and thinking, and nothing like a
 * participant's progress line: the climb is said where the model's own thinking would be.
 */
function foldedNote(progress: vscode.Progress<vscode.LanguageModelResponsePart>): ((line: string) => void) | undefined {
  const Thinking = thinkingPart();
  if (!Thinking) return undefined;
  return (line) => progress.report(new Thinking(`${line}\n`));
}

/** The editor's thinking part (in VS Code 1.139, not in the 1.104 types), or undefined. */
function thinkingPart(): (new (value: string) => vscode.LanguageModelResponsePart) | undefined {
  return (vscode as unknown as { LanguageModelThinkingPart?: new (value: string) => vscode.LanguageModelResponsePart })
    .LanguageModelThinkingPart;
}

/** Who asks, as VS Code 1.139 says it (`requestInitiator`, not in the 1.104 types): the asking extension's id. */
function initiatorOf(options: vscode.ProvideLanguageModelChatResponseOptions): string | undefined {
  const initiator: unknown = (options as { requestInitiator?: unknown }).requestInitiator;
  return typeof initiator === 'string' ? initiator : undefined;
}

/** The editor's messages as the core's: tool calls kept on the assistant turn, tool results as `tool` messages. */
export function toCoreMessages(messages: readonly vscode.LanguageModelChatRequestMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const message of messages) {
    const role: ChatMessage['role'] =
      message.role === vscode.LanguageModelChatMessageRole.Assistant
        ? 'assistant'
        : message.role === vscode.LanguageModelChatMessageRole.User
          ? 'user'
          : 'system';
    const texts: string[] = [];
    const toolCalls: ToolCall[] = [];
    for (const part of message.content) {
      const text = textOf(part);
      if (text !== undefined) texts.push(text);
      else if (isToolCall(part)) toolCalls.push({ id: part.callId, name: part.name, arguments: JSON.stringify(part.input ?? {}) });
      else if (isToolResult(part)) out.push({ role: 'tool', toolCallId: part.callId, content: partsText(part.content) });
    }
    const content = texts.join('');
    if (content || toolCalls.length) out.push({ role, content, ...(toolCalls.length ? { toolCalls } : {}) });
  }
  return out;
}

function toToolSpec(tool: vscode.LanguageModelChatTool): ToolSpec {
  return {
    name: tool.name,
    description: tool.description,
    parameters: (tool.inputSchema as Record<string, unknown> | undefined) ?? { type: 'object', properties: {} },
  };
}

function toToolCallPart(call: ToolCall): vscode.LanguageModelToolCallPart {
  let input: object;
  try {
    const parsed: unknown = JSON.parse(call.arguments || '{}');
    input = typeof parsed === 'object' && parsed !== null ? parsed : { value: parsed };
  } catch {
    // A model that wrote broken JSON arguments: passed on as text so the caller sees what it said.
    input = { text: call.arguments };
  }
  return new vscode.LanguageModelToolCallPart(call.id, call.name, input);
}

/*
 * Parts are recognised by shape as well as by class: the editor revives them as its own classes, but
 * newer editors add part kinds (prompt-tsx, data parts) an older @types/vscode does not name.
 */
function textOf(part: unknown): string | undefined {
  if (part instanceof vscode.LanguageModelTextPart) return part.value;
  // Thinking sent back with an earlier answer (Rung's own notes of a climb among it) is not the answer.
  const Thinking = thinkingPart();
  if (Thinking && part instanceof Thinking) return undefined;
  if (typeof part === 'object' && part !== null && 'value' in part && typeof part.value === 'string' && !('callId' in part))
    return part.value;
  return undefined;
}

function isToolCall(part: unknown): part is { callId: string; name: string; input: unknown } {
  return (
    part instanceof vscode.LanguageModelToolCallPart ||
    (typeof part === 'object' && part !== null && 'callId' in part && 'name' in part && 'input' in part)
  );
}

function isToolResult(part: unknown): part is { callId: string; content: readonly unknown[] } {
  return (
    part instanceof vscode.LanguageModelToolResultPart ||
    (typeof part === 'object' && part !== null && 'callId' in part && 'content' in part && Array.isArray(part.content))
  );
}

function partsText(parts: readonly unknown[]): string {
  return parts.map((part) => textOf(part) ?? JSON.stringify(part)).join('');
}

function messageText(message: vscode.LanguageModelChatRequestMessage): string {
  return partsText(message.content);
}
