/**
 * The one way an editor feature asks the session for an answer: what the user asked, from which
 * feature, with which model picked, becomes a `SessionChatRequest`, and the finished call is recorded
 * and logged the same way whichever feature made it.
 *
 * @remarks
 * Rung Auto and the panel models in the model picker, `@rung`, Edit Selection and Ask each put their
 * request together themselves, and they had drifted: one logged every escalation and another nothing,
 * one said a missing answer one way and another differently. So the rules live here:
 * - the model picked for this request opens the call, else the one pinned from the palette;
 * - a model to climb past (a retry) replaces the user's avoid, because the ladder above it decides;
 *   otherwise the avoided model is kept off the opener, unless it is the one that opens;
 * - in the chat features, the same request sent again unchanged climbs past the model that answered it
 *   (askedAgain.ts), except when a model is picked or pinned: the user chose what opens;
 * - a request asked again whose climb finds every stronger model down (a cloud server stopped) is
 *   answered by the ladder as before, after a sentence that says which provider is unreachable: the
 *   Chat view's Retry had been a dead end ("no model can take this call … not above … on the ladder")
 *   for as long as the provider stayed down, though the local model was healthy;
 * - the editor's cancellation stops the call;
 * - every finished call becomes the last call (Rate Last Answer, Explain Last Decision) and one line in
 *   the Rung log; a chat feature's answer is remembered for the next time the same request comes, and
 *   as a step of its agent turn, whose last step's line then says the whole turn (agentTurns.ts);
 * - in the chat features, the same request sent again, or a follow-up that says the answer before it
 *   was wrong, settles that answer as failed at the weight of feedback (feedback.ts), once; a follow-up
 *   that says it was wrong also climbs past the model that gave it, as the same request again does:
 *   answered by that model again, "That's wrong" was a correction asked of the model that was wrong.
 *
 * No vscode here: the editor's few facts come in as plain data and small interfaces, so each feature's
 * way of calling is unit-tested without an editor.
 */
import type { Clock } from '../../core/clock';
import type { ChatMessage, ToolSpec } from '../../core/providers/provider';
import { readRequest } from '../../core/session/inferredChecks';
import type { CallChecks, Session, SessionChatRequest, SessionChatResult, SessionEvent, VerdictWithReason } from '../../core/session/types';
import { answerLine, callLogLine, plainAnswerLine, summarizeAnswer, type AnswerSummary } from './answerLine';
import { AskedAgain, climbAfter } from './askedAgain';
import { chooseTools, undeclaredToolCalls, type AgentTools } from '../../core/providers/toolChoice';
import { downTexts, PlainError } from './plainErrors';
import { toolsLogText } from './toolsLine';
import { AnswersGiven, FEEDBACK_VERDICTS, saysWrong } from './feedback';
import { AgentTurns, type Turn } from './agentTurns';

/** The editor's cancellation, as much of it as a call needs; a `vscode.CancellationToken` is one. */
export interface Cancellation {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => void): { dispose(): void };
}

/** What the user chose and where the last call is kept; the extension's `RungState` is one. */
export interface CallState {
  /** The model pinned from the palette or the ledger view, which opens every call. */
  readonly pinned: string | undefined;
  /** The model kept off the opener. */
  readonly avoided: string | undefined;
  /** Keeps a finished call as the last one, for Rate Last Answer and Explain Last Decision. */
  recordCall(result: SessionChatResult, origin: string): void;
}

export interface CallLog {
  info(text: string): void;
  warn(text: string): void;
}

/** The session, as much of it as a call needs: the call, and the verdict feedback settles on an earlier one. */
export type ChatSession = Pick<Session, 'chat' | 'settle'>;

/** What a feature asks for. */
export interface FeatureAsk {
  /** Which feature asks, as messages and the log name it: `Rung Auto`, `@rung`, `Edit Selection`, `Ask`. */
  feature: string;
  messages: ChatMessage[];
  /** The tools the request offers; `agentTools` says which of them are sent. */
  tools?: ToolSpec[];
  /** Which offered tools are sent (`rung.agentTools`, whose default is `relevant`); all of them when absent. */
  agentTools?: AgentTools;
  /** The caller requires a tool call (`toolMode: Required`): every tool offered is sent. */
  toolCallRequired?: boolean;
  /** The class key; `infer` (the default) lets the session decide. */
  classKey?: string;
  checks?: CallChecks;
  conversationId?: string;
  /** The model picked for this request (a panel model in the model picker): it opens, ahead of the pin. */
  picked?: string;
  /** A model the user set aside: the call climbs past it. */
  above?: string;
  /** Why: a graded retry (the default), or a check of an unchecked answer, which grades nobody. */
  aboveBecause?: 'retry' | 'check';
  /**
   * Whether this feature remembers its answers so that the same request sent again climbs past the
   * model that answered it: the chat features, whose Retry sends the same request again.
   */
  climbWhenAskedAgain?: boolean;
  /** The editor's cancellation for the call. */
  cancellation?: Cancellation;
}

/**
 * Why a call climbs past a model: the user's retry, a check asked for, the same request asked again, or
 * a follow-up that says that model's answer was wrong.
 */
export interface Climb {
  above: string;
  because: 'retry' | 'check' | 'asked-again' | 'said-wrong';
}

/** A verdict a call settles on an earlier one before it runs: what the user's asking again says of it. */
export interface Feedback {
  callId: string;
  model: string;
  verdict: VerdictWithReason;
}

/** A finished call, with what the user reads about it. */
export interface FinishedCall {
  result: SessionChatResult;
  summary: AnswerSummary;
  climb: Climb | undefined;
  /** The user stopped the call, in the session or by the editor's cancellation: nothing to show. */
  stopped: boolean;
  /** The closing line, in Markdown. */
  line: string;
  /** The closing line without Markdown, for a notification or an error message. */
  plainLine: string;
  /**
   * Set when the call climbed past a model, found every stronger one down, and was answered as before:
   * which provider is unreachable and who answers instead, in one sentence.
   */
  fellBack?: string;
  /** Set when the call is a later step of an agent's turn: every step so far, this one last (agentTurns.ts). */
  turn?: Turn;
}

export interface FeatureCallsOptions {
  state: CallState;
  log: CallLog;
  /** The clock the asked-again memory reads. */
  clock: Clock;
}

export class FeatureCalls {
  private readonly state: CallState;
  private readonly log: CallLog;
  /** One memory of answered requests for every chat feature: a Retry under either's answer climbs. */
  private readonly askedAgain: AskedAgain;
  /** The chat features' recent answers, found again from the turns the editor sends back. */
  private readonly answers = new AnswersGiven();
  /** Calls feedback has settled already: one answer is graded by feedback once. */
  private readonly settled = new Set<string>();
  /** USD every call this window's features made has cost: the session's cost the short line says. */
  private spent = 0;
  /** The chat features' agent turns, step by step, for the line that ends each. */
  private readonly turns = new AgentTurns();

  constructor(options: FeatureCallsOptions) {
    this.state = options.state;
    this.log = options.log;
    this.askedAgain = new AskedAgain(options.clock);
  }

  /**
   * The request for `ask`, with the pin, the avoid and any climb applied, ready to run; a feature that
   * says something before the call starts (`@rung`'s "Asked again") reads `climb` first.
   */
  prepare(ask: FeatureAsk): PreparedCall {
    const offered = ask.tools ?? [];
    // Only the tools sent can be called: the session's tool-call check holds the answer to them.
    const { sent: tools, dropped } = chooseTools({
      messages: ask.messages,
      tools: offered,
      mode: ask.agentTools ?? 'all',
      required: ask.toolCallRequired === true,
    });
    const pinned = ask.picked ?? this.state.pinned;
    let climb: Climb | undefined = ask.above !== undefined ? { above: ask.above, because: ask.aboveBecause ?? 'retry' } : undefined;
    let note: string | undefined;
    let feedback: Feedback | undefined;
    if (!climb && ask.climbWhenAskedAgain) {
      const previous = this.askedAgain.previous(ask.messages, offered);
      // Asked again, the answer did not serve, whether or not a picked model keeps the call where it was.
      if (previous) feedback = { callId: previous.callId, model: previous.model, verdict: FEEDBACK_VERDICTS.askedAgain };
      if (previous && !pinned) {
        const repeat = climbAfter(previous);
        note = repeat.note;
        if (repeat.above !== undefined) climb = { above: repeat.above, because: 'asked-again' };
      }
    }
    if (!feedback && ask.climbWhenAskedAgain) {
      const wrong = this.saidWrong(ask.messages);
      if (wrong && !this.settled.has(wrong.feedback.callId)) {
        feedback = wrong.feedback;
        // Told its answer was wrong, the model that gave it is not the one to correct it.
        if (!climb && !pinned) {
          note = wrong.stronger
            ? `the user said ${wrong.feedback.model}'s answer (${wrong.feedback.callId}) was wrong: climbing past it`
            : `the user said ${wrong.feedback.model}'s answer (${wrong.feedback.callId}) was wrong; no eligible model sits above it, so it is routed as before`;
          if (wrong.stronger) climb = { above: wrong.feedback.model, because: 'said-wrong' };
        }
      }
    }
    if (feedback && this.settled.has(feedback.callId)) feedback = undefined;
    const avoid = this.state.avoided;
    const abort = new AbortController();
    const request: SessionChatRequest = {
      messages: ask.messages,
      classKey: ask.classKey ?? 'infer',
      signal: abort.signal,
      ...(tools.length ? { tools } : {}),
      ...(dropped.length ? { droppedTools: dropped } : {}),
      ...(ask.checks ? { checks: ask.checks } : {}),
      ...(pinned ? { pinned } : {}),
      ...(climb ? { above: climb.above } : avoid && avoid !== pinned ? { avoid } : {}),
      ...(ask.conversationId ? { conversationId: ask.conversationId } : {}),
    };
    if (climb?.because === 'retry') note = `a retry above ${climb.above}`;
    if (climb?.because === 'check') note = `a check of an unchecked answer, above ${climb.above}`;
    return new PreparedCall({
      ask,
      request,
      climb,
      abort,
      ...(feedback ? { feedback } : {}),
      settle: (session, given) => this.settle(session, given),
      spent: () => this.spent,
      finish: (call) => this.finish(ask, call, note),
      refused: (error) => this.refused(ask, error),
      warn: (text) => this.log.warn(text),
    });
  }

  /**
   * The answer a follow-up says was wrong: the user's turn opens by saying so, and the turn before it is
   * an answer of Rung's. Read only from a user's new turn, not from an agent's later rounds of one.
   */
  private saidWrong(messages: readonly ChatMessage[]): { feedback: Feedback; stronger: boolean } | undefined {
    const reading = readRequest(messages);
    if (reading.acted || !saysWrong(reading.words)) return undefined;
    let asked = messages.length - 1;
    while (asked >= 0 && !(messages[asked]?.role === 'user' && messages[asked]?.content === reading.text)) asked--;
    let before = asked - 1;
    while (before >= 0 && !(messages[before]?.role === 'assistant' && messages[before]?.content.trim())) before--;
    const answer = before >= 0 ? this.answers.find((messages[before] as ChatMessage).content) : undefined;
    return answer
      ? { feedback: { callId: answer.callId, model: answer.model, verdict: FEEDBACK_VERDICTS.saidWrong }, stronger: answer.stronger }
      : undefined;
  }

  /** Settles feedback on an earlier call, once, and says so in the log. */
  private settle(session: ChatSession, feedback: Feedback): void {
    if (this.settled.has(feedback.callId)) return;
    this.settled.add(feedback.callId);
    const known = session.settle(feedback.callId, feedback.verdict);
    this.log.info(
      `feedback on ${feedback.callId} (${feedback.model}): failed at weight ${feedback.verdict.weight ?? 1}, ${feedback.verdict.reason}${known ? '' : ' (the session no longer knew the call)'}`,
    );
  }

  /** Records and logs a finished call, and remembers a chat feature's answer for the same request again. */
  private finish(ask: FeatureAsk, call: FinishedCall, note: string | undefined): void {
    const { result } = call;
    this.spent += result.cost;
    this.state.recordCall(result, ask.feature);
    if (ask.climbWhenAskedAgain && result.answer && call.summary.kind === 'answered') {
      this.askedAgain.answered(ask.messages, ask.tools ?? [], {
        callId: result.callId,
        model: result.answer.model,
        stronger: call.summary.stronger,
      });
      this.answers.remember({ callId: result.callId, model: result.answer.model, stronger: call.summary.stronger }, result.answer.text);
      const turn = this.turns.step(readRequest(ask.messages), call.summary, result.checks);
      if (turn) call.turn = turn;
    }
    const tools = result.tools ? toolsLogText(result.tools) : undefined;
    this.log.info(callLogLine(ask.feature, call.summary, [note, tools].filter((part) => part !== undefined).join('; ') || undefined));
  }

  /** Logs a call the session refused before any model was asked (a malformed schema, no rung at all). */
  private refused(ask: FeatureAsk, error: unknown): void {
    this.log.warn(`${ask.feature} ${ask.classKey ?? 'infer'}: not routed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

interface PreparedCallParts {
  ask: FeatureAsk;
  request: SessionChatRequest;
  climb: Climb | undefined;
  abort: AbortController;
  feedback?: Feedback;
  settle: (session: ChatSession, feedback: Feedback) => void;
  /** USD this window's calls have cost before this one. */
  spent: () => number;
  finish: (call: FinishedCall) => void;
  refused: (error: unknown) => void;
  warn: (text: string) => void;
}

/** A request ready to run once. */
export class PreparedCall {
  readonly request: SessionChatRequest;
  /** The model the call climbs past and why, when it does. */
  readonly climb: Climb | undefined;
  /** The verdict this request settles on an earlier answer as it runs, when it says that answer failed. */
  readonly feedback: Feedback | undefined;
  private readonly parts: PreparedCallParts;

  constructor(parts: PreparedCallParts) {
    this.parts = parts;
    this.request = parts.request;
    this.climb = parts.climb;
    this.feedback = parts.feedback;
  }

  /**
   * Runs the call on `session`, passing each event to `onEvent`; the editor's cancellation stops it.
   * `onFallBack` hears the sentence said before an answer that stands in for an unreachable stronger model.
   */
  async run(session: ChatSession, onEvent?: (event: SessionEvent) => void, onFallBack?: (sentence: string) => void): Promise<FinishedCall> {
    const call = await this.ask(session, onEvent, onFallBack);
    // A call to a tool left out (or never offered) would run a tool the model was not given: refused whole.
    const undeclared = call.result.answer ? undeclaredToolCalls(call.result.answer.toolCalls, this.request.tools ?? []) : [];
    if (undeclared.length > 0) {
      const names = undeclared.map((toolCall) => toolCall.name).join(', ');
      this.parts.warn(
        `${this.parts.ask.feature} ${call.result.callId}: ${call.result.answer?.model ?? 'the model'} called ${names}, which Rung did not send; the tool calls were not passed on`,
      );
      const left = undeclared.some((toolCall) => this.request.droppedTools?.includes(toolCall.name));
      const what = `${call.result.answer?.model ?? 'The model'} called ${names}, which ${undeclared.length === 1 ? 'was' : 'were'} not sent to it, so nothing was run.`;
      throw new PlainError(left ? `${what} Ask again, or set rung.agentTools to "all" to send every tool.` : `${what} Ask again.`);
    }
    return call;
  }

  private async ask(
    session: ChatSession,
    onEvent?: (event: SessionEvent) => void,
    onFallBack?: (sentence: string) => void,
  ): Promise<FinishedCall> {
    const { ask, abort } = this.parts;
    if (this.feedback) this.parts.settle(session, this.feedback);
    if (ask.cancellation?.isCancellationRequested) abort.abort();
    const cancel = ask.cancellation?.onCancellationRequested(() => abort.abort());
    try {
      let result: SessionChatResult;
      try {
        result = await session.chat(this.request, onEvent);
      } catch (error) {
        this.parts.refused(error);
        const down = this.fallsBack() && isRoutingError(error) ? downTexts(undefined, error.pruned) : [];
        if (down.length === 0) throw error;
        return await this.fallBack(session, down, onEvent, onFallBack);
      }
      const call = this.finished(result, this.climb);
      this.parts.finish(call);
      if (
        this.fallsBack() &&
        !call.stopped &&
        !result.answer &&
        result.attempts.every((attempt) => attempt.verdict.kind === 'provider-error')
      ) {
        const down = downTexts(call.summary.kind === 'no-answer' ? call.summary.last : undefined, result.ranking.pruned);
        if (down.length > 0) return await this.fallBack(session, down, onEvent, onFallBack);
      }
      return call;
    } finally {
      cancel?.dispose();
    }
  }

  /**
   * Whether a call that finds every stronger model down is asked again as before: only the same request
   * asked again, or a follow-up saying the answer was wrong, not a graded retry the user asked for.
   */
  private fallsBack(): boolean {
    return this.climb?.because === 'asked-again' || this.climb?.because === 'said-wrong';
  }

  /** Asks the ladder as before, without the climb, and says first which provider is unreachable. */
  private async fallBack(
    session: ChatSession,
    down: string[],
    onEvent?: (event: SessionEvent) => void,
    onFallBack?: (sentence: string) => void,
  ): Promise<FinishedCall> {
    const { above: _above, ...request } = this.request;
    const said = `${down.join('; ')}`;
    onFallBack?.(`${said}; asking the ladder as before.`);
    let result: SessionChatResult;
    try {
      result = await session.chat(request, onEvent);
    } catch (error) {
      this.parts.refused(error);
      throw error;
    }
    const call = this.finished(result, undefined);
    const answered = call.summary.kind === 'answered' ? `${call.summary.model} answers instead` : 'nothing else answered either';
    const fellBack = { ...call, fellBack: `${said}; ${answered}.` };
    this.parts.finish(fellBack);
    return fellBack;
  }

  private finished(result: SessionChatResult, climb: Climb | undefined): FinishedCall {
    const summary = summarizeAnswer(result, {
      ...(climb ? { above: climb.above, ...(climb.because === 'said-wrong' ? { saidWrong: true } : {}) } : {}),
      sessionCost: this.parts.spent() + result.cost,
    });
    return {
      result,
      summary,
      climb,
      stopped: result.stopped || this.parts.ask.cancellation?.isCancellationRequested === true,
      line: answerLine(summary),
      plainLine: plainAnswerLine(summary),
    };
  }
}

/** The router's refusal of a call no rung could take, with the models it left out and why. */
function isRoutingError(error: unknown): error is Error & { pruned: { model: string; reason: string }[] } {
  return error instanceof Error && error.name === 'RoutingError' && 'pruned' in error && Array.isArray(error.pruned);
}
