/**
 * The confidence check in the editor and the CLI: one learner for the session, kept in the ledger,
 * and for each call it judges a plan, a verifier, a climb, and what the call teaches.
 *
 * @remarks
 * The same learner and the same plan as `rung replay --verifier confidence`, so the check measured is
 * the check that runs. What differs is where grades come from: the replay knows every attempt's grade
 * after its call; here a grade comes only when someone gives one for the answer that stood (the user
 * rejects it or asks for a stronger model, an edit is kept or discarded: `Session.settle`), so the
 * learner is told those, and the confidences of every call it judged, graded or not.
 */
import type { Ledger } from '../ledger/ledger';
import type { ChatMessage, ProviderAdapter } from '../providers/provider';
import type { AttemptRecord, ClimbStrategy, Ranking } from '../routing/types';
import type { Verdict } from '../verdict';
import { ConfidenceVerifier } from './confidenceVerifier';
import { confidenceClimb } from './confidenceClimb';
import { ConfidenceLearner, MIN_CONFIDENCE_GRADED, OPENING, type ConfidencePlan, type JudgedAnswer } from './confidenceLearner';
import { askConfidence, type SelfCheck } from './selfCheck';

/**
 * Which models the confidence check asks its question of: none (`off`), those on a local provider
 * (`local`), or every model that answers a call it judges (`all`).
 *
 * @remarks
 * The question is a second call to the model that answered, made on every answer the check reads, so
 * on a paid model it is a cost the user never sees asked for: one more request, the whole
 * conversation and the answer as input again, for one token out. A local model's question costs
 * nothing but time, so `local` is the default; a paid model's answer then stands as it would with no
 * check, unjudged, and the climb from a local answer still plans with what the paid rung is worth.
 */
export type ConfidenceCheckMode = 'off' | 'local' | 'all';

/** Every {@link ConfidenceCheckMode}, for a front end that reads one from the user. */
export const CONFIDENCE_CHECK_MODES: readonly ConfidenceCheckMode[] = ['off', 'local', 'all'];

/** The mode a session runs when it is given none: the question costs nothing where it is asked. */
export const DEFAULT_CONFIDENCE_CHECK: ConfidenceCheckMode = 'local';

/** How many recent calls a later grade can still reach: as many as the router keeps for settling. */
export const MAX_GRADABLE_CALLS = 1_000;

export interface LiveConfidenceOptions {
  /** The ledger the counts are read from and written to; a ledger that keeps none gives a learner for this session only. */
  ledger: Ledger;
  /** The adapters by provider name, as they are now (the panel may change). */
  adapters: () => ReadonlyMap<string, ProviderAdapter>;
  /** What a wrong answer costs, in calls to the dearest rung (the tradeoff's). */
  multiple: () => number;
  /** Whose answers the question is asked of; `local` when absent ({@link ConfidenceCheckMode}: `off` is no LiveConfidence at all). */
  ask?: Exclude<ConfidenceCheckMode, 'off'>;
}

/** One call's confidence check: the verifier the attempts run, the climb the router follows, and the end of the call. */
export interface ConfidenceCall {
  verifier: ConfidenceVerifier;
  /** The plan's climb, or undefined (the router's own) while the plan's opener has no learned threshold. */
  climb: (ranking: Ranking) => ClimbStrategy | undefined;
  /** Tells the learner what the call read, and keeps the standing answer (the router's) for a later grade. */
  finish(callId: string, standing: AttemptRecord | undefined): void;
  /**
   * Whether `candidate`'s answer would be judged: a model the mode asks (local ones under `local`), on a
   * provider that gives log-probabilities, with a threshold learned from {@link MIN_CONFIDENCE_GRADED}
   * graded answers. What a front end names before the answer: short of that, the answer ends unchecked.
   */
  judges(candidate: { slug: string; provider: string; local: boolean }): boolean;
}

export class LiveConfidence {
  private learner: ConfidenceLearner;
  private readonly options: LiveConfidenceOptions;
  private readonly gradable = new Map<
    string,
    { classKey: string; answer: JudgedAnswer } | { classKey: string; unread: { model: string; incoming: number } }
  >();
  /**
   * Provider and model pairs that answered the question without log-probabilities, for this session:
   * they are not asked again. An Ollama older than 0.12.11, or a server that ignores the parameter,
   * would otherwise cost a second call on every answer for a check that can never speak.
   */
  private readonly silent = new Set<string>();

  constructor(options: LiveConfidenceOptions) {
    this.options = options;
    this.learner = this.fromLedger();
  }

  /**
   * Starts the learner again from the ledger's counts, after a reset there: the learner is built from
   * them once, and a class the user reset would otherwise keep being judged by what was forgotten.
   */
  reload(): void {
    this.learner = this.fromLedger();
    this.gradable.clear();
  }

  /** The check for one call of `classKey` whose conversation is `messages`. */
  forCall(classKey: string, messages: readonly ChatMessage[]): ConfidenceCall {
    let plan: ConfidencePlan | undefined;
    // The model whose answer the plan took without asking its confidence, and the state the call was in before it.
    let unread: { model: string; incoming: number } | undefined;
    const providers = new Map<string, string>();
    const local = new Set<string>();
    const read = async (answer: { text: string; model: string }, signal?: AbortSignal): Promise<SelfCheck> => {
      if ((this.options.ask ?? 'local') === 'local' && !local.has(answer.model)) {
        return {
          logprob: null,
          silentBecause: 'not asked, since it is not on a local provider and the confidence check is "local" ("all" asks paid models too)',
          inputTokens: null,
          outputTokens: null,
        };
      }
      const provider = providers.get(answer.model);
      const adapter = provider === undefined ? undefined : this.options.adapters().get(provider);
      if (!adapter?.logprobs)
        return {
          logprob: null,
          silentBecause: `provider ${provider ?? '(unknown)'} gives no log-probabilities`,
          inputTokens: null,
          outputTokens: null,
        };
      const key = `${provider}\u0000${answer.model}`;
      if (this.silent.has(key))
        return {
          logprob: null,
          silentBecause: 'its server sent no log-probabilities when asked before in this session',
          inputTokens: null,
          outputTokens: null,
        };
      const read = await askConfidence(adapter, answer.model, messages, answer.text, signal);
      if (read.noLogprobs) this.silent.add(key);
      return read;
    };
    return {
      verifier: new ConfidenceVerifier({
        plan: () => plan,
        read,
        unread: (model) => {
          unread = { model, incoming: plan?.answers().at(-1)?.state ?? OPENING };
        },
      }),
      climb: (ranking) => {
        for (const candidate of ranking.candidates) {
          providers.set(candidate.slug, candidate.provider);
          if (candidate.local) local.add(candidate.slug);
        }
        // The question is a second call where it is asked of a paid model: about the price of the answer
        // call again (the request and the answer go back as input); a local model's costs nothing.
        const asks = this.options.ask ?? 'local';
        plan = this.learner.plan(
          classKey,
          ranking.candidates.map((candidate) => ({
            slug: candidate.slug,
            price: candidate.cost,
            readPrice: candidate.local || asks === 'local' ? 0 : candidate.cost,
            // Here an answer is judged only past the gate of grades, and a rung short of it is never opened with to learn it.
            judged: this.asked(candidate) && this.learner.graded(classKey, candidate.slug) >= MIN_CONFIDENCE_GRADED,
          })),
          this.options.multiple(),
        );
        // A plan whose opener has no learned threshold would choose where to open from the prior alone,
        // and the check will not judge that answer: the call opens, and stands, as an unchecked call does.
        return plan.graded(plan.opener) >= MIN_CONFIDENCE_GRADED ? confidenceClimb(plan, ranking) : undefined;
      },
      judges: (candidate) => this.asked(candidate) && plan !== undefined && plan.graded(candidate.slug) >= MIN_CONFIDENCE_GRADED,
      finish: (callId, standing) => {
        if (!plan) return;
        const answers = plan.answers();
        this.learner.observeReads(classKey, answers);
        // A later grade is about the answer that stood, judged or kept unjudged while the learner learns.
        const answer =
          standing?.confidence !== undefined
            ? answers.find((each) => each.model === standing.model && each.logprob === standing.confidence)
            : undefined;
        if (answer) this.remember(callId, { classKey, answer });
        else if (unread && standing?.model === unread.model) this.remember(callId, { classKey, unread });
      },
    };
  }

  /**
   * Teaches the learner a grade given after the answer (the user's, a check run later), when the call's
   * standing answer was judged by confidence; returns whether it was.
   */
  grade(callId: string, verdict: Verdict): boolean {
    const call = this.gradable.get(callId);
    if (!call || (verdict !== 'pass' && verdict !== 'fail')) return false;
    this.gradable.delete(callId);
    if ('unread' in call) this.learner.observeUnread(call.classKey, call.unread.model, verdict === 'pass', call.unread.incoming);
    else this.learner.observeGrade(call.classKey, call.answer.model, call.answer.logprob, verdict === 'pass', call.answer.incoming);
    return true;
  }

  /** Whether `candidate` is asked its confidence at all: a model the mode asks, on a provider that gives log-probabilities and has not been silent. */
  private asked(candidate: { slug: string; provider: string; local: boolean }): boolean {
    return (
      ((this.options.ask ?? 'local') === 'all' || candidate.local) &&
      this.options.adapters().get(candidate.provider)?.logprobs === true &&
      !this.silent.has(`${candidate.provider}\u0000${candidate.slug}`)
    );
  }

  private fromLedger(): ConfidenceLearner {
    const ledger = this.options.ledger;
    return new ConfidenceLearner({
      counts: ledger.confidenceCounts?.() ?? [],
      ...(ledger.countConfidence ? { onCount: (increments) => ledger.countConfidence?.(increments) } : {}),
    });
  }

  private remember(
    callId: string,
    call: { classKey: string; answer: JudgedAnswer } | { classKey: string; unread: { model: string; incoming: number } },
  ): void {
    this.gradable.delete(callId);
    this.gradable.set(callId, call);
    if (this.gradable.size > MAX_GRADABLE_CALLS) this.gradable.delete(this.gradable.keys().next().value as string);
  }
}
