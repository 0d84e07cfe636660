/**
 * What a local Ollama says about one of its models on `POST /api/show`: whether it takes tools and
 * answers chats, its context window and its parameter count.
 *
 * @remarks
 * `/api/tags` lists names and sizes only, so a panel built from it had to guess the rest: it declared
 * every model to take tools (so Agent mode's requests reached them) and gave no context window. Ollama
 * answers the rest here: `capabilities` (`completion`, `tools`, `thinking`, `vision`, `embedding`; absent
 * before Ollama 0.6.4, and then nothing is assumed) and `model_info`, whose `<architecture>.context_length`
 * is the window the model was trained for (`general.architecture` names the architecture; a vision
 * tower's `<architecture>.vision.…` keys are not the model's). `general.parameter_count` is the count
 * itself, where `details.parameter_size` can be that count as a bare string rather than "116.8B" (a model
 * Ollama serves from its cloud, recorded in test/fixtures/wire/ollama/show-gpt-oss-120b.json).
 * Only the fields read are validated, loosely, and every failure is an answer of "not known".
 */
import * as z from 'zod';
import { Deadline } from './deadline';
import { parseParameterSize, PROBE_TIMEOUT_MS } from './ollamaAdapter';
import { joinUrl, readBodyCapped, type FetchLike } from './transport';

/**
 * The most of one `/api/show` answer read, bytes.
 *
 * @remarks
 * Real answers are under 60 KB (a model's licence, template and `model_info`; the recorded
 * `show-dolphin3-8b.json` is 56 KB). It was read whole, however long, for every model listed.
 */
export const MAX_SHOW_BYTES = 1024 * 1024;

/** What `/api/show` said about a model; a field is absent when Ollama did not say. */
export interface OllamaModelDetails {
  /** Whether it takes tool calls (`tools` among its capabilities). */
  tools?: boolean;
  /** Whether it answers chats at all (`completion`); false for an embedding model. */
  chat?: boolean;
  /** The context window it was trained for, tokens. */
  context?: number;
  /** Parameters, billions. */
  parameterBillions?: number;
}

const showSchema = z.looseObject({
  capabilities: z.array(z.string()).nullable().optional(),
  model_info: z.record(z.string(), z.unknown()).nullable().optional(),
  details: z.looseObject({ parameter_size: z.string().optional() }).nullable().optional(),
});

export interface OllamaShowOptions {
  baseUrl: string;
  fetch?: FetchLike;
  signal?: AbortSignal;
  /** How long the answer may take, ms; a local server that takes longer is not waited for. */
  timeoutMs?: number;
}

/** Asks Ollama about `model`; undefined when it did not answer, or not with a model's details. Never throws. */
export async function showOllamaModel(model: string, options: OllamaShowOptions): Promise<OllamaModelDetails | undefined> {
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const deadline = new Deadline(options.signal);
  deadline.arm(options.timeoutMs ?? PROBE_TIMEOUT_MS);
  try {
    const response = await doFetch(joinUrl(options.baseUrl, '/api/show'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model }),
      signal: deadline.signal,
    });
    if (!response.ok) return undefined;
    // Past the bound, readBodyCapped stops reading and throws: the same as no answer.
    const parsed = showSchema.safeParse(JSON.parse(await readBodyCapped(response, MAX_SHOW_BYTES)));
    return parsed.success ? readDetails(parsed.data) : undefined;
  } catch {
    return undefined;
  } finally {
    deadline.clear();
  }
}

function readDetails(show: z.infer<typeof showSchema>): OllamaModelDetails {
  const capabilities = show.capabilities ?? undefined;
  const info = show.model_info ?? {};
  const context = contextLength(info);
  const count = info['general.parameter_count'];
  const billions =
    typeof count === 'number' && count > 0 ? Number((count / 1e9).toPrecision(4)) : sizeInBillions(show.details?.parameter_size);
  return {
    ...(capabilities ? { tools: capabilities.includes('tools'), chat: capabilities.includes('completion') } : {}),
    ...(context !== undefined ? { context } : {}),
    ...(billions !== undefined ? { parameterBillions: billions } : {}),
  };
}

/** `<architecture>.context_length`; without an architecture, the one `*.context_length` key at the top of the family. */
function contextLength(info: Record<string, unknown>): number | undefined {
  const architecture = info['general.architecture'];
  const keys =
    typeof architecture === 'string'
      ? [`${architecture}.context_length`]
      : Object.keys(info).filter((key) => /^[^.]+\.context_length$/.test(key));
  const values = keys
    .map((key) => info[key])
    .filter((value): value is number => typeof value === 'number' && Number.isInteger(value) && value > 0);
  return values.length === 1 ? values[0] : undefined;
}

/** `details.parameter_size` in billions: "8.0B" → 8, and a bare count ("116829156672") → 116.8. */
function sizeInBillions(text: string | undefined): number | undefined {
  if (text !== undefined && /^\s*\d{7,}\s*$/.test(text)) return Number((Number(text) / 1e9).toPrecision(4));
  return parseParameterSize(text);
}
