/**
 * The panel Rung builds by itself on a first run: the chat models a local Ollama already holds.
 *
 * @remarks
 * A user who installed Rung next to a running Ollama should get routing without writing a file. The
 * models are ordered by size and given the roles the cold-start prior reads (smallest `base`, largest
 * `top`), which is all a panel without evidence can say about them; the ratings take over from there.
 * Embedding models are left out: they cannot answer a chat, and calling one would be graded as a
 * failure of the model rather than of the choice. Every model is declared to take tools: `/api/tags` does
 * not say which do, the Chat view's Agent mode and inline chat always send tools (a panel without
 * `tools` had every rung pruned there), and a model that refuses them answers 400 "does not support
 * tools", which skips that rung without grading it or marking Ollama down.
 */
import type { PanelFile } from '../../core/panel';
import type { ModelFacts } from '../../core/providers/provider';

/** Name fragments of models that embed text rather than chat. */
const EMBEDDING_NAMES = /embed|(^|[-_/:.])(bge|e5|minilm|all-minilm)([-_/:.]|$)/i;

/** The most models a first-run panel lists: beyond this the walk only adds rungs nobody asked for. */
export const FIRST_RUN_MAX_MODELS = 4;

/** A panel over the Ollama models found, or undefined when none of them can chat. */
export function panelFromOllamaModels(models: ModelFacts[], provider = 'ollama'): PanelFile | undefined {
  const chat = models.filter((model) => !EMBEDDING_NAMES.test(model.slug));
  if (chat.length === 0) return undefined;
  // Unknown sizes sort last: a model whose size Ollama did not report is more likely a large import.
  const bySize = [...chat].sort((a, b) => (a.parameterBillions ?? Number.POSITIVE_INFINITY) - (b.parameterBillions ?? Number.POSITIVE_INFINITY) || a.slug.localeCompare(b.slug));
  const chosen = spread(bySize, FIRST_RUN_MAX_MODELS);
  return {
    models: chosen.map((model, index) => ({
      slug: model.slug,
      provider,
      role: index === 0 ? 'base' : index === chosen.length - 1 ? 'top' : 'mid',
      tools: true,
      ...(model.context ? { context: model.context } : {}),
    })),
  };
}

/** At most `count` models spread across the sizes, keeping the smallest and the largest. */
function spread<T>(sorted: T[], count: number): T[] {
  if (sorted.length <= count) return sorted;
  const picked: T[] = [];
  for (let index = 0; index < count; index++) {
    picked.push(sorted[Math.round((index * (sorted.length - 1)) / (count - 1))] as T);
  }
  return picked;
}
