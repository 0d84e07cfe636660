/**
 * The panel file's JSON Schema, made from the panel's one zod schema, with a sentence for every field.
 *
 * @remarks
 * VS Code completes and underlines a JSON file against a schema an extension contributes
 * (`jsonValidation` in package.json, for `.rung/panel.json`), so a misspelt key is marked as it is
 * typed, not when Rung next reads the file. Written by hand, such a schema drifts from the validator
 * (a field added to one and not the other), so it is generated: `node esbuild.mjs` calls
 * {@link panelJsonSchema} and writes `dist/panel.schema.json`, which the package ships. zod's
 * `toJSONSchema` gives the shape — types, enums, bounds, no unknown keys — and this module adds what zod
 * does not know: what each field means and its unit, shown on hover.
 */
import * as z from 'zod';
import { panelSchema } from './panel';

/** What each field means, by path: `[]` for a list's items, `*` for each value of a map. */
export const PANEL_FIELD_DESCRIPTIONS: Readonly<Record<string, string>> = {
  '': "The models this workspace may use, and the router's settings (Rung reads it from .rung/panel.json).",
  models: 'The models Rung may route to; their order is the last tie-break between equal ones.',
  'models[]': 'One model: its slug as its provider names it, and the provider that serves it.',
  'models[].slug': 'The model as its provider names it, e.g. "qwen2.5:3b" (Ollama) or "openai/gpt-4o-mini" (OpenRouter).',
  'models[].provider': 'The provider that serves the model: "ollama", "openrouter", "openai", or one declared under "providers".',
  'models[].role': 'Where the model sits on the ladder before anything is measured: base (small), mid or top (strong).',
  'models[].price': "USD per million tokens; absent: the provider's catalog is asked, and a local model costs 0.",
  'models[].price.input': 'USD per million input (prompt) tokens.',
  'models[].price.output': 'USD per million output (answer) tokens.',
  'models[].context': "The model's context window, tokens: a request estimated larger than this skips the model.",
  'models[].tools': 'Whether the model takes tool calls: without true, a request that sends tools skips it.',
  'models[].maxConcurrent': 'Calls in flight at once for this model, across every window and process sharing the ledger.',
  maxOutputPrice: 'A price cap, USD per million output tokens: a model whose known output price is above it is skipped.',
  diversity: 'Caps on calls per provider within one conversation or run; null or absent: unbounded.',
  'diversity.maxConsecutivePerProvider': 'The most calls in a row that may go to one provider (a whole number, or null for no cap).',
  'diversity.maxTotalPerProvider': 'The most calls in all that may go to one provider (a whole number, or null for no cap).',
  profiles: 'Diversity caps for one class of call ("plan", "edit", "edit/typescript"), over the global ones.',
  'profiles.*': 'The caps for this class of call.',
  'profiles.*.maxConsecutivePerProvider': 'The most calls in a row to one provider for this class (null: no cap).',
  'profiles.*.maxTotalPerProvider': 'The most calls in all to one provider for this class (null: no cap).',
  routing: 'How the router chooses between the models.',
  'routing.explore':
    'The chance, 0 to 1, of opening a checkable call with a model the ratings would not open with, to learn about it (default 0.05).',
  'routing.requireEvidence': 'Rank only measured models once any model is measured for the class (default false).',
  'routing.tradeoff': '"quality" climbs until a check passes; "economy" skips poor bets sooner, for a lot less cost and a little accuracy.',
  'routing.explorePaid': 'Whether exploration may open with a paid model the plan would not have opened with (default false).',
  'routing.exploreMeasured':
    'The chance, 0 to 1, of opening with any eligible model, measured or not, so the decision log can answer what another opener would have cost (default 0).',
  'routing.promptSignal':
    "Whether the planner reads the prompt's text: a per-prompt difficulty signal and the guessing floor a multiple-choice format gives (default false).",
  'routing.attemptTimeoutSeconds':
    'How long one attempt on one model may take, in seconds, before Rung counts it as a provider error and climbs (default 600, at most 86400).',
  'routing.waitWorth':
    "What a minute of your waiting is worth, USD: Rung weighs each model's expected wait at this price beside its cost, so a model that rarely passes stops opening once its failed tries cost more time than they save money (default 0.1; 0 weighs money alone).",
  providers: 'Providers by name: their kind and address. "ollama", "openrouter" and "openai" need no entry.',
  'providers.*': 'One provider: its kind, its address and whether it needs a key. Keys never go in this file.',
  'providers.*.kind':
    'The adapter: "ollama", "openai-compatible" (OpenRouter, OpenAI, LM Studio, llama.cpp, vLLM), "vscode-lm" or "replay".',
  'providers.*.baseUrl': 'Where the provider listens, e.g. "http://127.0.0.1:8080/v1" for a local OpenAI-compatible server.',
  'providers.*.key':
    '"required" or "none": whether the provider needs an API key (absent: none on this machine\'s loopback, required elsewhere). The key itself is set with Rung: Set Provider Key, or RUNG_<PROVIDER>_API_KEY for the CLI.',
};

type JsonSchema = { [key: string]: unknown };

/** The panel file's JSON Schema (draft-07, which VS Code's JSON support reads in full), every field described. */
export function panelJsonSchema(): JsonSchema {
  const schema = z.toJSONSchema(panelSchema, { target: 'draft-7', io: 'input' }) as JsonSchema;
  describe(schema, '');
  return { ...schema, title: 'Rung panel (.rung/panel.json)' };
}

/** The field paths of a generated schema, as {@link PANEL_FIELD_DESCRIPTIONS} names them. */
export function schemaFieldPaths(schema: JsonSchema, path = ''): string[] {
  const paths = [path];
  for (const [child, at] of children(schema, path)) paths.push(...schemaFieldPaths(child, at));
  return paths;
}

function describe(schema: JsonSchema, path: string): void {
  const description = PANEL_FIELD_DESCRIPTIONS[path];
  if (description !== undefined) schema.description = description;
  for (const [child, at] of children(schema, path)) describe(child, at);
}

/** The schemas inside `schema` that stand for a field: properties, a list's items, a map's values; through a nullable's branches. */
function children(schema: JsonSchema, path: string): [JsonSchema, string][] {
  const found: [JsonSchema, string][] = [];
  if (isSchema(schema.properties)) {
    for (const [key, child] of Object.entries(schema.properties)) if (isSchema(child)) found.push([child, path ? `${path}.${key}` : key]);
  }
  if (isSchema(schema.items)) found.push([schema.items, `${path}[]`]);
  if (isSchema(schema.additionalProperties)) found.push([schema.additionalProperties, `${path}.*`]);
  if (Array.isArray(schema.anyOf)) {
    // A nullable field is `anyOf: [the field, null]`: its branches are the field itself, not fields below it.
    for (const branch of schema.anyOf) if (isSchema(branch)) found.push(...children(branch, path));
  }
  return found;
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
