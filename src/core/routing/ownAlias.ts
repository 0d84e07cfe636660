/**
 * Which model a panel slug's ratings are kept under: the slug, or the id its own provider reports for it.
 *
 * @remarks
 * A response names the model that served it, and the ledger keys a slug's ratings on that name (an
 * alias, `~vendor/model-latest` → `vendor/model-2026-01`), so a floating alias's ratings follow the
 * snapshot behind it. But the name is the provider's word: a cheap provider whose responses said
 * `dear/model` put its own failures on the rating of the dear model another provider serves. So a
 * reported id is taken only within the same provider: never the slug, nor the snapshot, of a model
 * another provider serves on the panel, and never under another vendor's name (the part of an
 * OpenRouter-style id before its `/`). Otherwise the answer counts for the panel's own slug.
 */
import type { Panel } from '../panel';
import type { LedgerSnapshot } from '../ledger/ledger';

/** The providers that serve each model id on a panel, by slug and by the snapshot it resolves to. */
export type ModelOwners = ReadonlyMap<string, ReadonlySet<string>>;

/** Who serves which id on `panel`, as `snapshot` resolves each slug: made once per ranking. */
export function modelOwners(panel: Panel, snapshot: LedgerSnapshot): ModelOwners {
  const owners = new Map<string, Set<string>>();
  const own = (id: string, provider: string): void => {
    const providers = owners.get(id) ?? new Set<string>();
    providers.add(provider);
    owners.set(id, providers);
  };
  for (const model of panel.models) {
    own(model.slug, model.provider);
    own(snapshot.resolve(model.slug), model.provider);
  }
  return owners;
}

/**
 * The id `slug`'s ratings are kept under when its provider reports `claimed`: `claimed` when it is the
 * provider's own name for the model, else the slug.
 */
export function ownAlias(slug: string, provider: string, claimed: string, owners: ModelOwners): string {
  if (claimed === slug) return slug;
  if (vendorOf(claimed) !== vendorOf(slug)) return slug;
  for (const owner of owners.get(claimed) ?? []) if (owner !== provider) return slug;
  return claimed;
}

/** The vendor an OpenRouter-style id names before its `/` (`openai` in `openai/gpt-4o`), without the floating tilde; empty when it names none. */
function vendorOf(id: string): string {
  const bare = id.startsWith('~') ? id.slice(1) : id;
  const slash = bare.indexOf('/');
  return slash < 0 ? '' : bare.slice(0, slash);
}
