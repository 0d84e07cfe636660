/**
 * `@rung` in the Chat view: a request routed through the session, streamed, with each escalation
 * shown as it happens and a closing line that says which model answered, on which rung, and why.
 *
 * @remarks
 * The participant renders the session's events and nothing else. Thumbs up and down become verdicts
 * on the call (`session.settle`), and "Retry with a stronger model" is a graded failure: the answer is
 * settled as failed, then the same question is routed again on the rungs above that model. "Have a
 * stronger model judge this answer" (`/check`), offered under an answer no check judged, asks a rung
 * above it for a verdict on the answer, which grades it at the judge's weight (judgeAnswer.ts). The Chat view's own Retry sends the same request again: it climbs the same way and fails the
 * answer at the weight of feedback (calls/askedAgain.ts, calls/feedback.ts). `/edit` sends the
 * selection, else the active file, as Edit Selection does (edit/editPrompt.ts), checks the answer as the
 * file with the edit in its place, and offers it as Edit Selection's diff to accept or reject.
 */
import * as vscode from 'vscode';
import { basename } from 'node:path';
import type { ChatMessage } from '../../core/providers/provider';
import type { CallChecks, Session, SessionEvent } from '../../core/session/types';
import { escalationCause, explainMarkdown, formatUsd, verdictPhrase } from '../describe';
import { plainReason } from '../../protocol/reasonText';
import { retryRefusal } from '../calls/plainErrors';
import { askingLine } from '../calls/askingLine';
import { JUDGE_CLASS, JUDGE_SCHEMA, judgedVerdict, judgeMessages, judgementMarkdown, readJudgement } from './judgeAnswer';
import { InterruptedCalls } from '../calls/interruptedCalls';
import { isEditorAgentReference, referenceText } from './promptReferences';
import { feedbackVerdict, followupsFor, readMetadata, RETRY_VERDICT, type RungChatMetadata } from './chatMetadata';
import {
  chatEditMessages,
  extractEdit,
  replacementFor,
  SHOW_CHAT_EDIT_COMMAND,
  SplicedSyntaxVerifier,
  textDigest,
  type ChatEditProposal,
} from '../edit/editPrompt';
import type { FeatureCalls } from '../calls/featureCalls';
import type { RungLog } from '../log';
import { NotSetUpError, type SessionHost } from '../session/sessionHost';
import type { RungState } from '../state';

export const PARTICIPANT_ID = 'rung.rung';

export interface ChatParticipantDeps {
  sessions: SessionHost;
  state: RungState;
  log: RungLog;
  /** How a feature asks the session: pin, avoid, climbs, recording and the log line. */
  calls: FeatureCalls;
}

/** Decision rows read for calls a closed or reloaded window interrupted: a few calls' worth, the newest first. */
const INTERRUPTED_ROWS = 20;

export function registerChatParticipant(context: vscode.ExtensionContext, deps: ChatParticipantDeps): void {
  const interrupted = new InterruptedCalls(context.workspaceState);
  let lookedForInterrupted = false;
  /** Names, once a window, the newest call an earlier window's shutdown cut off, above this request's answer. */
  const sayInterrupted = async (session: Session, stream: vscode.ChatResponseStream): Promise<void> => {
    if (lookedForInterrupted) return;
    lookedForInterrupted = true;
    try {
      const rows = session.snapshot({ limit: INTERRUPTED_ROWS, filter: { verdict: 'interrupted' } }).decisions.rows;
      const sentence = await interrupted.unnamed(rows);
      if (sentence) stream.markdown(`> ${sentence}\n\n`);
    } catch (error) {
      deps.log.warn(`could not look for calls an earlier window interrupted: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, (request, chatContext, stream, token) =>
    handle(deps, request, chatContext, stream, token, sayInterrupted),
  );
  participant.iconPath = new vscode.ThemeIcon('layers');
  participant.followupProvider = {
    provideFollowups: (result) => {
      const metadata = metadataOf(result);
      // Not offered where it would be refused: past the budget, or with every stronger provider down.
      if (metadata?.model && retryRefusal(deps.sessions.current, metadata.classKey, metadata.model) !== undefined) return [];
      return followupsFor(metadata).map((followup) => ({ prompt: '', command: followup.command, label: followup.label }));
    },
  };
  context.subscriptions.push(
    participant,
    participant.onDidReceiveFeedback((feedback) => void settleFeedback(deps, feedback)),
  );
}

/** Thumbs up is a pass, thumbs down a fail, for the call the answer came from. */
async function settleFeedback(deps: ChatParticipantDeps, feedback: vscode.ChatResultFeedback): Promise<void> {
  const metadata = metadataOf(feedback.result);
  if (!metadata) return;
  const helpful = feedback.kind === vscode.ChatResultFeedbackKind.Helpful;
  const session = await deps.sessions.get();
  const settled = session.settle(metadata.callId, feedbackVerdict(helpful));
  deps.log.info(
    `feedback on ${metadata.callId}: ${helpful ? 'helpful' : 'unhelpful'}${settled ? '' : ' (the session did not know the call)'}`,
  );
}

async function handle(
  deps: ChatParticipantDeps,
  request: vscode.ChatRequest,
  context: vscode.ChatContext,
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
  sayInterrupted: (session: Session, stream: vscode.ChatResponseStream) => Promise<void>,
): Promise<vscode.ChatResult> {
  let session: Session;
  try {
    session = await deps.sessions.get();
  } catch (error) {
    return notReady(error, stream);
  }
  await sayInterrupted(session, stream);
  if (request.command === 'why') return why(session, deps, stream);
  if (request.command === 'retry' || request.command === 'check')
    return askAbove(request.command, session, deps, request, context, stream, token);
  const { prompt, notes } = await promptWithReferences(request);
  const history = historyMessages(context.history);
  if (request.command === 'edit') return edit(session, deps, prompt, history, stream, token);
  const messages = [...history, { role: 'user' as const, content: prompt }];
  return route(session, deps, { messages, classKey: classFor(request.command), prompt, notes }, stream, token);
}

/**
 * `/edit`: the instruction with the selection, else the whole active file, in Edit Selection's words;
 * the answer must hold code, checked for syntax, or the call climbs.
 */
async function edit(
  session: Session,
  deps: ChatParticipantDeps,
  instruction: string,
  history: ChatMessage[],
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
): Promise<vscode.ChatResult> {
  const editor = vscode.window.activeTextEditor;
  const document = editor?.document;
  const asked = chatEditMessages({
    instruction,
    editor:
      document && editor
        ? {
            documentText: document.getText(),
            start: document.offsetAt(editor.selection.start),
            end: document.offsetAt(editor.selection.end),
            languageId: document.languageId,
            fileName: basename(document.fileName),
          }
        : undefined,
  });
  if ('refused' in asked) {
    stream.markdown(asked.refused);
    return {};
  }
  // What went with the instruction is shown as the response's reference, as the Chat view shows an attachment.
  let target: ChatEditTarget | undefined;
  if (document && editor && asked.sent !== 'words') {
    stream.reference(asked.sent === 'selection' ? new vscode.Location(document.uri, editor.selection) : document.uri);
    target = {
      uri: document.uri.toString(),
      documentText: document.getText(),
      start: asked.start,
      end: asked.end,
      languageId: document.languageId,
    };
  }
  const system = asked.messages[0]?.role === 'system' ? asked.messages[0] : undefined;
  const user = asked.messages.at(-1) as ChatMessage;
  const messages = [...(system ? [system] : []), ...history, user];
  return route(
    session,
    deps,
    {
      messages,
      classKey: classFor('edit'),
      prompt: user.content,
      ...(system ? { system: system.content } : {}),
      ...(target ? { edit: target } : {}),
    },
    stream,
    token,
  );
}

/**
 * Where an `/edit` answer goes: the file (its URI and its text when asked) and the code it replaces, as
 * offsets into that text.
 */
interface ChatEditTarget {
  uri: string;
  documentText: string;
  start: number;
  end: number;
  languageId: string;
}

/**
 * The checks of an `/edit` answer: the file with the answer's code in its place must parse, as Edit
 * Selection checks its edits, rather than the block on its own, which passed a whole file answered
 * less its last `}` as "quoted from the request". An answer with no code fails.
 */
function chatEditChecks(target: ChatEditTarget): CallChecks {
  return { answerSyntax: false, extra: [new SplicedSyntaxVerifier(target)] };
}

/** The edit target a retried `/edit` answer still has: its file unchanged since, else none. */
async function editTargetNow(edit: RungChatMetadata['edit']): Promise<ChatEditTarget | undefined> {
  if (!edit) return undefined;
  try {
    const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(edit.uri));
    const documentText = document.getText();
    return textDigest(documentText) === edit.digest ? { ...edit, documentText } : undefined;
  } catch {
    return undefined;
  }
}

/** The class key a slash command names; a plain question is left to the session. */
function classFor(command: string | undefined): string {
  switch (command) {
    case 'plan':
      return 'plan';
    case 'explain':
      return 'explain';
    case 'edit': {
      const language = vscode.window.activeTextEditor?.document.languageId;
      return language ? `edit/${language}` : 'edit';
    }
    default:
      return 'infer';
  }
}

interface RouteInput {
  messages: ChatMessage[];
  classKey: string;
  prompt: string;
  /** The system message sent (`/edit`'s), kept so a retry sends it again. */
  system?: string;
  /** A retry's or a check's model: the call climbs past it (`above`), and no user avoid applies. */
  above?: string;
  aboveBecause?: 'retry' | 'check';
  /** An `/edit` of code in a file: checked in its place, and offered as a diff to apply. */
  edit?: ChatEditTarget;
  /** What the user is told of what went with the question (a file sent in part), said under the answer. */
  notes?: readonly string[];
}

async function route(
  session: Session,
  deps: ChatParticipantDeps,
  input: RouteInput,
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
): Promise<vscode.ChatResult> {
  const call = deps.calls.prepare({
    feature: '@rung',
    messages: input.messages,
    classKey: input.classKey,
    ...(input.edit ? { checks: chatEditChecks(input.edit) } : {}),
    ...(input.above !== undefined ? { above: input.above, ...(input.aboveBecause ? { aboveBecause: input.aboveBecause } : {}) } : {}),
    // The same request again (the Chat view's Retry) climbs past the model that answered it, as /retry does.
    climbWhenAskedAgain: true,
    cancellation: token,
  });
  if (call.climb?.because === 'asked-again')
    stream.markdown(
      `Asked again: trying the rungs above ${call.climb.above}, whose answer counts as failed at the weight of feedback.\n\n`,
    );
  if (call.climb?.because === 'said-wrong')
    stream.markdown(
      `You said ${call.climb.above}'s answer was wrong: trying the rungs above it; that answer counts as failed at the weight of feedback.\n\n`,
    );
  let text = '';
  const onEvent = (event: SessionEvent): void => {
    switch (event.type) {
      case 'routed':
        stream.progress(
          `Routing as ${event.classKey}: ${event.ranking.candidates.map((candidate) => candidate.slug).join(' → ') || 'no eligible rung'}`,
        );
        return;
      case 'rung-started':
        // Named before its first word: the model, where it runs and its price, and what will check it.
        stream.progress(`Asking ${event.candidate.slug} (rung ${event.attempt + 1}): ${plainReason(event.candidate.reason)}`);
        stream.markdown(
          `*${askingLine({ model: event.candidate.slug, local: event.candidate.local, price: event.price, checks: event.checks })}*\n\n`,
        );
        return;
      case 'part':
        if (event.part.type === 'text-delta' && event.part.text) {
          text += event.part.text;
          stream.markdown(event.part.text);
        }
        return;
      case 'escalated':
        text = '';
        stream.markdown(`\n\n> **Escalated** from ${event.from} to ${event.to}: ${escalationCause(event)}\n\n`);
        return;
      case 'skipped':
        text = '';
        stream.markdown(`\n\n> Skipped ${event.model} (${verdictPhrase(event.verdict)}); trying ${event.next}\n\n`);
        return;
      case 'verdict':
      case 'done':
        return;
    }
  };
  const { result, summary, line, plainLine } = await call.run(session, onEvent, (sentence) =>
    stream.markdown(`> ${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}\n\n`),
  );
  // With no answer standing, the closing line is the response's error, which the Chat view shows in its own box: not twice.
  const failed = !result.answer && !result.stopped;
  // Under the answer, where the Chat view does not fold it away with the steps before the answer.
  for (const note of input.notes ?? []) stream.markdown(`\n\n> ${note}`);
  if (!failed) stream.markdown(`\n\n---\n${line}`);
  // An edit is applied Rung's way, as a diff in its file: the code block's own Apply needs Copilot's code mapper.
  const block = input.edit && result.answer ? extractEdit(result.answer.text, input.edit.languageId) : undefined;
  if (input.edit && result.answer && block !== undefined) {
    const replacement = replacementFor(input.edit.documentText, input.edit.start, input.edit.end, block);
    const proposal: ChatEditProposal = {
      callId: result.callId,
      model: result.answer.model,
      classKey: result.classKey,
      uri: input.edit.uri,
      digest: textDigest(input.edit.documentText),
      start: input.edit.start,
      end: input.edit.end,
      replacement,
      footer: plainLine,
    };
    stream.button({ command: SHOW_CHAT_EDIT_COMMAND, title: 'Show Diff and Apply', arguments: [proposal] });
  }
  stream.markdown(decisionLinks(result.callId));
  const metadata: RungChatMetadata = {
    callId: result.callId,
    classKey: result.classKey,
    model: result.answer?.model,
    prompt: input.prompt,
    answer: result.answer?.text ?? text,
    stronger: summary.kind === 'answered' && summary.stronger,
    ...(summary.kind === 'answered' ? { checked: summary.checked } : {}),
    ...(input.system !== undefined ? { system: input.system } : {}),
    ...(input.edit
      ? {
          edit: {
            uri: input.edit.uri,
            digest: textDigest(input.edit.documentText),
            start: input.edit.start,
            end: input.edit.end,
            languageId: input.edit.languageId,
          },
        }
      : {}),
  };
  return { metadata, ...(failed ? { errorDetails: { message: line } } : {}) };
}

/**
 * `/retry`: the last answer failed in the user's eyes: it is settled so, and the same question routed
 * again above its model (after a judge found it wrong, the answer it judged, graded already). `/check`:
 * a stronger model judges the last answer ({@link judge}).
 */
async function askAbove(
  kind: 'retry' | 'check',
  session: Session,
  deps: ChatParticipantDeps,
  request: vscode.ChatRequest,
  context: vscode.ChatContext,
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
): Promise<vscode.ChatResult> {
  const turns = context.history;
  const answered = (turn: (typeof turns)[number]): boolean =>
    turn instanceof vscode.ChatResponseTurn && turn.participant === PARTICIPANT_ID && metadataOf(turn.result) !== undefined;
  let index = findLastIndex(turns, answered);
  const previous = index < 0 ? undefined : metadataOf((turns[index] as vscode.ChatResponseTurn).result);
  if (!previous?.model) {
    stream.markdown(`There is no answer from @rung in this conversation to ${kind}.`);
    return {};
  }
  // A judge's verdict names the answer it judged: that answer's turn is the one asked again.
  if (previous.judged !== undefined) {
    const judged = findLastIndex(
      turns,
      (turn) => answered(turn) && metadataOf((turn as vscode.ChatResponseTurn).result)?.callId === previous.callId && turn !== turns[index],
    );
    if (judged >= 0) index = judged;
  }
  if (kind === 'check') return judge(session, deps, { ...previous, model: previous.model }, stream, token);
  // An answer a judge found wrong is graded already: asking for the stronger answer grades nothing more.
  if (previous.judged !== 'wrong') session.settle(previous.callId, RETRY_VERDICT);
  const marked =
    previous.judged === 'wrong' ? `${previous.model}'s answer was judged wrong` : `Marked ${previous.model}'s answer as failed`;
  if (previous.stronger === false) {
    stream.markdown(
      `${marked}. No eligible model sits above it on the ladder, so there is nothing stronger to ask: add one to the panel, or set its provider's key.`,
    );
    return {};
  }
  const refused = retryRefusal(session, previous.classKey, previous.model);
  if (refused !== undefined) {
    stream.markdown(`${marked}. No model above it can take the question now: ${refused}.`);
    if (/budget/.test(refused))
      stream.button({ command: 'workbench.action.openSettings', title: 'Raise Budget', arguments: ['rung.dailyBudget'] });
    return {};
  }
  stream.markdown(`${marked}; asking again on the rungs above it.\n\n`);
  const extra = request.prompt.trim();
  // The conversation before the question asked again, then the question itself (after `/edit`'s system message, when it had one).
  const before = historyMessages(turns.slice(0, Math.max(0, index - 1)));
  const system = previous.system !== undefined ? [{ role: 'system' as const, content: previous.system }] : [];
  const messages = [...system, ...before, { role: 'user' as const, content: extra ? `${previous.prompt}\n\n${extra}` : previous.prompt }];
  // A retried edit is checked in its file as the first was, while the file is as it was then.
  const edit = await editTargetNow(previous.edit);
  return route(
    session,
    deps,
    {
      messages,
      classKey: previous.classKey,
      prompt: previous.prompt,
      ...(previous.system !== undefined ? { system: previous.system } : {}),
      above: previous.model,
      aboveBecause: kind,
      ...(edit ? { edit } : {}),
    },
    stream,
    token,
  );
}

/**
 * `/check`: a stronger model judges the answer before it (judgeAnswer.ts). The verdict grades that
 * answer at the judge's weight; an answer judged wrong is followed by the offer to ask the stronger
 * model for its own, and one judged right by nothing.
 */
async function judge(
  session: Session,
  deps: ChatParticipantDeps,
  previous: RungChatMetadata & { model: string },
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
): Promise<vscode.ChatResult> {
  if (previous.stronger === false) {
    stream.markdown(`No eligible model sits above ${previous.model} on the ladder, so there is nothing stronger to judge its answer.`);
    return {};
  }
  const refused = retryRefusal(session, JUDGE_CLASS, previous.model);
  if (refused !== undefined) {
    stream.markdown(`No model above ${previous.model} can judge its answer now: ${refused}.`);
    return {};
  }
  const call = deps.calls.prepare({
    feature: '@rung /check',
    messages: judgeMessages(previous.prompt, previous.answer, previous.system),
    classKey: JUDGE_CLASS,
    checks: { schema: JUDGE_SCHEMA },
    above: previous.model,
    aboveBecause: 'check',
    cancellation: token,
  });
  const { result, summary, line } = await call.run(session, (event) => {
    if (event.type === 'rung-started')
      stream.progress(askingLine({ model: event.candidate.slug, local: event.candidate.local, price: event.price, checks: event.checks }));
  });
  const judgement = result.answer ? readJudgement(result.answer.text) : undefined;
  if (!result.answer || !judgement) {
    if (!result.stopped) stream.markdown(`No stronger model gave a verdict on ${previous.model}'s answer, so it stays ungraded.\n\n`);
    return result.stopped ? {} : { errorDetails: { message: line } };
  }
  const judgeModel = result.answer.model;
  session.settle(previous.callId, judgedVerdict(judgement, judgeModel));
  deps.log.info(
    `@rung /check ${result.callId}: ${judgeModel} judged ${previous.callId} (${previous.model}) ${judgement.right ? 'right' : 'wrong'}`,
  );
  stream.markdown(judgementMarkdown(judgement, judgeModel, previous.model));
  // The turn's own line: who judged and what the verdict cost, beside the session's cost.
  const sessionCost =
    summary.sessionCost !== undefined && summary.sessionCost > result.cost ? ` · session ${formatUsd(summary.sessionCost)}` : '';
  stream.markdown(
    `\n\n---\nRung · ${judgeModel} judged ${previous.model}'s answer · ${result.checked} · ${formatUsd(result.cost)}${sessionCost}`,
  );
  // The question, not the verdict, is what a later retry asks again; the verdict is no answer for the history.
  const metadata: RungChatMetadata = {
    ...previous,
    answer: '',
    checked: true,
    judged: judgement.right ? 'right' : 'wrong',
    ...(judgement.right ? { stronger: false } : {}),
  };
  return { metadata };
}

/**
 * Two small links under an answer, to why its model was chosen and to the ledger.
 *
 * @remarks
 * They were two large buttons under every answer, taller together than a short answer; links in the
 * line's own size say the same. Trusted for these two commands only.
 */
function decisionLinks(callId: string): vscode.MarkdownString {
  const explain = `command:rung.explainLastDecision?${encodeURIComponent(JSON.stringify([callId]))}`;
  const links = new vscode.MarkdownString(`\n\n[Why this model](${explain}) · [Open Ledger](command:rung.openLedger)`);
  links.isTrusted = { enabledCommands: ['rung.explainLastDecision', 'rung.openLedger'] };
  return links;
}

/** `/why`: the last call's decision rows, as Explain Last Decision shows them. */
async function why(session: Session, deps: ChatParticipantDeps, stream: vscode.ChatResponseStream): Promise<vscode.ChatResult> {
  const last = deps.state.lastCall;
  if (!last) {
    stream.markdown('Rung has routed no call in this window yet.');
    return {};
  }
  stream.markdown(explainMarkdown(last.callId, session.explain(last.callId)).replace(/^# /, '### '));
  stream.button({ command: 'rung.openLedger', title: 'Open Ledger' });
  return {};
}

function notReady(error: unknown, stream: vscode.ChatResponseStream): vscode.ChatResult {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof NotSetUpError) {
    stream.markdown(
      `Rung has nothing to route to yet: ${message}.\n\nStart Ollama with a model pulled (\`ollama serve\`, \`ollama pull qwen2.5-coder:7b\`), or describe a panel in \`.rung/panel.json\` and set a provider key.`,
    );
    stream.button({ command: 'rung.setProviderKey', title: 'Set Provider Key' });
    stream.button({ command: 'workbench.action.openSettings', title: 'Open Rung Settings', arguments: ['rung.'] });
    return {};
  }
  return { errorDetails: { message: `Rung could not start: ${message}` } };
}

/** Earlier turns with @rung as messages; answers without their closing line, from the metadata. */
function historyMessages(history: readonly (vscode.ChatRequestTurn | vscode.ChatResponseTurn)[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (const turn of history) {
    if (turn.participant !== PARTICIPANT_ID) continue;
    if (turn instanceof vscode.ChatRequestTurn) {
      if (turn.command === 'retry' || turn.command === 'check' || turn.command === 'why') continue;
      messages.push({ role: 'user', content: turn.prompt });
    } else if (turn instanceof vscode.ChatResponseTurn) {
      const metadata = metadataOf(turn.result);
      if (!metadata) continue;
      if (metadata.answer) messages.push({ role: 'assistant', content: metadata.answer });
    }
  }
  return messages;
}

/**
 * The prompt with the files and selections the user attached (#file), each under its name; the context
 * the editor builds for its own agent (its skills index, instruction files) is left out (promptReferences.ts).
 * A file too long to send whole goes as the part around the selection or cursor, and `notes` say so.
 */
async function promptWithReferences(request: vscode.ChatRequest): Promise<{ prompt: string; notes: string[] }> {
  const parts = [request.prompt];
  const notes: string[] = [];
  for (const reference of request.references) {
    if (isEditorAgentReference(reference)) continue;
    const value = reference.value;
    const uri = value instanceof vscode.Uri ? value : value instanceof vscode.Location ? value.uri : undefined;
    if (!uri) {
      if (typeof value === 'string') parts.push(value);
      continue;
    }
    try {
      const document = await vscode.workspace.openTextDocument(uri);
      const range = value instanceof vscode.Location ? value.range : undefined;
      const sent = referenceText({
        name: vscode.workspace.asRelativePath(uri),
        languageId: document.languageId,
        text: range ? document.getText(range) : document.getText(),
        ...focusIn(document, range),
      });
      parts.push(sent.prompt);
      if (sent.note) notes.push(sent.note);
    } catch {
      // An attachment that cannot be read is left out; the question still goes.
    }
  }
  return { prompt: parts.join('\n\n'), notes };
}

/**
 * Where the user is working in `document`, as offsets into its text sent (the whole file, or `range`):
 * the selection of an editor showing it, else its cursor; nothing when no editor shows it there.
 */
function focusIn(
  document: vscode.TextDocument,
  range: vscode.Range | undefined,
): { focus?: { start: number; end: number }; focusWord?: string } {
  const editor = [vscode.window.activeTextEditor, ...vscode.window.visibleTextEditors].find(
    (candidate) => candidate?.document.uri.toString() === document.uri.toString(),
  );
  if (!editor) return {};
  const selection = editor.selection;
  if (range && !range.contains(selection)) return {};
  const base = range ? document.offsetAt(range.start) : 0;
  return {
    focus: { start: document.offsetAt(selection.start) - base, end: document.offsetAt(selection.end) - base },
    focusWord: selection.isEmpty ? 'around the cursor' : 'around the selection',
  };
}

function metadataOf(result: vscode.ChatResult): RungChatMetadata | undefined {
  return readMetadata(result.metadata);
}

function findLastIndex<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  for (let index = items.length - 1; index >= 0; index--) if (predicate(items[index] as T)) return index;
  return -1;
}
