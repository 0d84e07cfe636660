/**
 * One-parameter Rasch ratings: how able a model is at one class of call, and how one outcome moves that.
 *
 * @remarks
 * One parameter, not two: the origin lab fitted both and the two-parameter model lost (likelihood
 * ratio 11.63 on 15 degrees of freedom, p = 0.71; AIC 137.4 against 155.8). Unpenalised maximum
 * likelihood diverges on all-pass data (one fit reached +42 logits with standard errors near 470),
 * so the online update below has brakes: a N(0, 3²) prior whose pull falls as 1/(n+1), a step of
 * 0.6 / (1 + n/12) clamped to ±0.5, and ratings clamped to ±6 logits.
 */
import type { Role } from './panel';

/** Graded observations a rating needs before it may override the cold-start prior (the origin's MinGraded). */
export const MIN_GRADED = 8;
/** Ratings live in ±6 logits: success probabilities 0.0025 to 0.9975. */
export const RATING_LIMIT_LOGITS = 6;
/** The largest move one observation may make, in logits. */
export const MAX_STEP_LOGITS = 0.5;
/** Step size at n = 0; it decays as 1 / (1 + n / STEP_DECAY_OBSERVATIONS). */
export const BASE_STEP = 0.6;
export const STEP_DECAY_OBSERVATIONS = 12;
/** The N(0, 3²) prior: its pull on the rating is rating / (PRIOR_VARIANCE × (n + 1)). */
export const PRIOR_VARIANCE = 9;

/**
 * Spread of call difficulty within a class, in logits: the prior every call's difficulty is drawn from.
 *
 * @remarks
 * A rating is "ability against a call of average difficulty"; a single call's difficulty is unknown
 * until several rungs have tried it. 1.5 logits is where the recorded outcomes put it: most classes
 * hold calls every model solves and calls none does.
 */
export const DIFFICULTY_SD_LOGITS = 1.5;

/**
 * The prior share of calls in a class that no model can answer.
 *
 * @remarks
 * 3.8% of the recorded prompts were answered by none of nine models; 5% leaves room for classes
 * harder than those benchmarks. See difficulty.ts for why the mass is there at all.
 */
export const UNANSWERABLE_SHARE = 0.05;

/** What a call's other attempts said about its difficulty: a normal over logits, and the chance nobody can answer it. */
export interface Difficulty {
  mean: number;
  sd: number;
  /** Probability the call is unanswerable; 0 when absent. */
  unanswerable?: number;
  /**
   * The chance a model that cannot answer the call is right anyway, by guessing among its choices; 0
   * when absent. See {@link expectedSuccess}.
   */
  guess?: number;
}

/**
 * How far a rating follows its prior when the prior moves, logits²: the prior's variance in a
 * conjugate-normal update, so a rating holding information I moves by Δ / (1 + I × this).
 *
 * @remarks
 * 1 was a first guess and was not tuned; 9 (the fold's own prior variance) was looked at on the
 * generated worlds only and did worse there (BENCHMARKS.md, "Routing quality out of sample", "Policy changes tried" item 5).
 */
export const PRIOR_FOLLOW_VARIANCE = 1;

/**
 * How fast the drift detector forgets: each outcome's surprise enters its running mean with weight
 * 1 / DRIFT_MEMORY_OBSERVATIONS.
 */
export const DRIFT_MEMORY_OBSERVATIONS = 5;
/**
 * The running mean of (observed − expected) success, in probability, at which a rating is taken to have
 * stopped describing its model: the slug now serves something else, or the work changed.
 */
export const DRIFT_SURPRISE = 0.4;

/** What is known about one model at one class key. */
export interface Rating {
  /** Logits; ability is its logistic. */
  rating: number;
  /** Graded observations (pass or fail) folded in, whatever their weight. */
  graded: number;
  /** Of those, passes. */
  ok: number;
  /**
   * The drift detector's running mean of (observed − expected) success, in probability; 0 when absent.
   * See {@link applyObservation}.
   */
  surprise?: number;
  /**
   * Graded observations since the drift detector last fired, which the step size decays with in place
   * of `graded`; absent when it never fired.
   */
  sinceDrift?: number;
  /**
   * Fisher information about the rating folded in so far, Σ weight × (dp/dθ)² / (p (1 − p)) against
   * each call's difficulty: how firmly the model's own evidence holds the rating where it is. Absent on
   * a rating from a ledger older than this field, which never follows its prior (see
   * {@link applyObservation}).
   */
  information?: number;
  /** The prior the rating last followed, logits; absent until an observation carried one. */
  followedPrior?: number;
  /**
   * What the attempts at this key really cost, against what their list price said before each call:
   * USD summed over the graded attempts that reported both, and how many did. Absent until one did.
   * See {@link observedPriceFactor}.
   */
  cost?: { observed: number; listed: number; attempts: number };
}

/** One graded outcome, queued for the ledger. */
export interface Observation {
  /** The resolved model that served the answer (the response's own model field). */
  model: string;
  classKey: string;
  success: boolean;
  /**
   * What the call's graded attempts, this one included, said about its difficulty. Absent: the class
   * prior, N(0, {@link DIFFICULTY_SD_LOGITS}²) with its unanswerable share.
   */
  difficulty?: Difficulty;
  /** How much of the outcome was about the model, 0–1; 1 when absent. */
  weight?: number;
  /**
   * The rating the model is presumed to have before its own evidence says otherwise: where a new rating
   * begins, and what an existing one follows as far as its information lets it (see
   * {@link applyObservation}).
   */
  prior?: number;
  /** When the outcome was graded, ms since the epoch. */
  at: number;
  /** What the attempt cost, USD, and what its list price said it would before the call; absent when either is unknown. */
  cost?: { observed: number; listed: number };
}

export function logistic(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

/** The rating read as the probability of success on a call of average difficulty in its class. */
export function ability(rating: number): number {
  return logistic(rating);
}

/**
 * The cold-start rating a role stands for, worth about one observation.
 *
 * @remarks
 * Never derived from price: on a seven-model panel log output price and measured ability correlated
 * at only r = 0.46, and the second-cheapest model had the second-highest ability.
 */
export function rolePrior(role: Role | undefined): number {
  switch (role) {
    case 'base':
      return -0.5;
    case 'mid':
      return 0.5;
    case 'top':
      return 1.5;
    case undefined:
      return 0;
  }
}

/**
 * P(success) for a model of `rating` on a call whose difficulty is N(mean, sd²).
 *
 * @remarks
 * The probit approximation of the logistic-normal integral (MacKay 1992): exact enough for ordering
 * rungs, and a closed form, so an update costs no quadrature.
 */
export function expectedSuccess(
  rating: number,
  difficulty: Difficulty = { mean: 0, sd: DIFFICULTY_SD_LOGITS, unanswerable: UNANSWERABLE_SHARE },
): number {
  const scale = Math.sqrt(1 + (Math.PI * difficulty.sd * difficulty.sd) / 8);
  const knows = logistic((rating - difficulty.mean) / scale);
  const guess = difficulty.guess ?? 0;
  return (1 - (difficulty.unanswerable ?? 0)) * (guess === 0 ? knows : guess + (1 - guess) * knows);
}

/**
 * Folds one graded observation into a rating, and notices when the rating has stopped describing its
 * model.
 *
 * @remarks
 * The move is rate(n) × (observed − expected − rating / (9 (n+1))), scaled by the observation's weight.
 * `expected` is taken against the call's difficulty as all its rungs saw it: a cascade hands the dear
 * rungs only the calls the cheap ones failed, and scoring those against an average call would punish a
 * strong model for the company it keeps.
 *
 * Drift — a provider swapping the model behind a slug, or the work changing: the step size decays as
 * evidence accumulates, which is what keeps a settled rating steady, and also what made a swapped
 * model take hundreds of calls to lose its place (143–481 calls at the drifted class in the generated
 * drift world). So the rating keeps a running mean of how far outcomes fell from what it expected of
 * them (`surprise`, each outcome weighted 1 / {@link DRIFT_MEMORY_OBSERVATIONS}). Past the gate, when
 * that mean reaches {@link DRIFT_SURPRISE} either way, the step-size decay restarts from 0
 * (`sinceDrift`): the rating relearns at the speed of a new one, but from where it was, so a false alarm
 * costs a few larger steps rather than everything known. Both live in the rating, not beside the router,
 * so a ledger reopened halfway through an alarm carries on with it, and every member of a team folding
 * the same observations in the same order reaches the same state.
 */
export function applyObservation(current: Rating | undefined, given: Observation): Rating {
  const observation = usable(given);
  const start = followPrior(current, observation);
  const n = start.graded;
  const weight = Math.min(1, Math.max(0, observation.weight ?? 1));
  const expected = expectedSuccess(start.rating, observation.difficulty);
  const observed = observation.success ? 1 : 0;
  const memory = weight / DRIFT_MEMORY_OBSERVATIONS;
  let surprise = (1 - memory) * (start.surprise ?? 0) + memory * (observed - expected);
  let sinceDrift = start.sinceDrift;
  if (n + 1 >= MIN_GRADED && Math.abs(surprise) >= DRIFT_SURPRISE) {
    surprise = 0;
    sinceDrift = 0;
  }
  const rate = BASE_STEP / (1 + (sinceDrift ?? n) / STEP_DECAY_OBSERVATIONS);
  const pull = start.rating / (PRIOR_VARIANCE * (n + 1));
  const step = clamp(rate * weight * (observed - expected - pull), -MAX_STEP_LOGITS, MAX_STEP_LOGITS);
  return {
    rating: clamp(start.rating + step, -RATING_LIMIT_LOGITS, RATING_LIMIT_LOGITS),
    graded: n + 1,
    ok: start.ok + observed,
    surprise,
    ...(sinceDrift === undefined ? {} : { sinceDrift: sinceDrift + 1 }),
    ...foldCost(start.cost, observation.cost),
    ...(start.information === undefined
      ? {}
      : {
          information: start.information + weight * fisherInformation(start.rating, observation.difficulty),
          followedPrior: observation.prior ?? start.followedPrior ?? 0,
        }),
  };
}

/**
 * The observation with every number it carries finite, or left out (its default then applies).
 *
 * @remarks
 * A rating is the sum of every observation before it, so one NaN is NaN for good: a team member's
 * weight of `"x"` once did that to everyone's rating of a model. The team's rows are checked as they are
 * read (teamRows.ts); this is the last line, for any other way an observation arrives.
 */
function usable(observation: Observation): Observation {
  const { weight, prior, difficulty } = observation;
  const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
  const difficultyOk =
    difficulty !== undefined &&
    finite(difficulty.mean) &&
    finite(difficulty.sd) &&
    (difficulty.unanswerable === undefined ||
      (finite(difficulty.unanswerable) && difficulty.unanswerable >= 0 && difficulty.unanswerable <= 1));
  // One whole as given (the router's always are) is handed back as it is: a copy per outcome learned was
  // garbage at once.
  if (
    typeof observation.success === 'boolean' &&
    (weight === undefined || finite(weight)) &&
    (prior === undefined || finite(prior)) &&
    (difficulty === undefined || difficultyOk)
  )
    return observation;
  const { weight: _weight, prior: _prior, difficulty: _difficulty, ...rest } = observation;
  return {
    ...rest,
    success: observation.success === true,
    ...(finite(weight) ? { weight } : {}),
    ...(finite(prior) ? { prior } : {}),
    ...(difficultyOk ? { difficulty } : {}),
  };
}

/**
 * Attempts at a key before the planner prices a model there at what its attempts really cost rather than
 * at its list price.
 *
 * @remarks
 * A list price times the tokens a call is expected to need is one figure for every class, but classes
 * differ in how much a model writes: on the recorded outcomes gpt-4o's calls cost 3.4× their mean in
 * gsm8k (it reasons at length) and 0.25× in triviaqa (a few words), and the other models' differ less,
 * so the cheapest bet in one class is not the cheapest in another. Costs vary far less from call to
 * call than pass or fail, so a few attempts say more about a price than the gate of 8 says about an
 * ability; 4 was a first guess and was not tuned.
 */
export const MIN_PRICED_ATTEMPTS = 4;

/**
 * What a model's attempts at a key have cost on average, USD, or undefined below
 * {@link MIN_PRICED_ATTEMPTS} attempts.
 *
 * @remarks
 * The mean itself, not its ratio to the list price: a ratio carries whatever price list it was taken
 * against into a later one (a replay of a subset prices each model at the subset's mean), and a model's
 * list price is the same for every class anyway, so the ratio would only restate the mean.
 */
export function observedPrice(rating: Pick<Rating, 'cost'> | undefined): number | undefined {
  const cost = rating?.cost;
  if (!cost || cost.attempts < MIN_PRICED_ATTEMPTS) return undefined;
  return cost.observed / cost.attempts;
}

function foldCost(current: Rating['cost'], observed: Observation['cost']): Pick<Rating, 'cost'> {
  if (!observed || !Number.isFinite(observed.observed) || !Number.isFinite(observed.listed) || observed.observed < 0 || observed.listed < 0)
    return current ? { cost: current } : {};
  const base = current ?? { observed: 0, listed: 0, attempts: 0 };
  return { cost: { observed: base.observed + observed.observed, listed: base.listed + observed.listed, attempts: base.attempts + 1 } };
}

/**
 * The rating an observation starts from: a new one at the observation's prior, an existing one moved by
 * as much of the prior's change as its own information leaves open.
 *
 * @remarks
 * Why a rating follows a prior at all: a cascade climbs to a dear rung only on calls every cheaper rung
 * failed, and on data where the cheap rungs between them answer nearly everything answerable those are
 * calls nobody answers. The paired evidence rightly learns nothing from failing them, so a dear rung's
 * rating stayed at its cold-start prior (ability 0.5) below cheap rungs measured on ordinary calls, and
 * the learned order of models ran against their true accuracy (rank correlation −0.29 on the
 * eleven-model world). The router now gives each observation the best measured rating among the
 * cheaper rungs at the class as the prior (a dearer model on the same panel is presumed no less able
 * until its evidence says so). A rating that holds no information about its model follows that prior
 * wholly; a well-measured one hardly moves. A rating loaded from a ledger that kept no information
 * (before schema v5) stays where its evidence put it, as it always did.
 */
function followPrior(current: Rating | undefined, observation: Observation): Rating {
  if (current === undefined) return { rating: observation.prior ?? 0, graded: 0, ok: 0, information: 0 };
  if (current.information === undefined || observation.prior === undefined) return current;
  const shift = (observation.prior - (current.followedPrior ?? observation.prior)) / (1 + current.information * PRIOR_FOLLOW_VARIANCE);
  return { ...current, rating: clamp(current.rating + shift, -RATING_LIMIT_LOGITS, RATING_LIMIT_LOGITS) };
}

/**
 * Fisher information one outcome carries about a rating, against the call's difficulty (probit
 * approximation, as in {@link expectedSuccess}): about 0 on a call the posterior calls unanswerable.
 */
function fisherInformation(
  rating: number,
  difficulty: Difficulty = { mean: 0, sd: DIFFICULTY_SD_LOGITS, unanswerable: UNANSWERABLE_SHARE },
): number {
  const scale = Math.sqrt(1 + (Math.PI * difficulty.sd * difficulty.sd) / 8);
  const success = logistic((rating - difficulty.mean) / scale);
  const answerable = 1 - (difficulty.unanswerable ?? 0);
  const guess = difficulty.guess ?? 0;
  const p = answerable * (guess + (1 - guess) * success);
  const slope = (answerable * (1 - guess) * success * (1 - success)) / scale;
  return p <= 0 || p >= 1 ? 0 : (slope * slope) / (p * (1 - p));
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}
