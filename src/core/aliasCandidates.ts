/**
 * A slug as it may be written, with and without OpenRouter's floating-alias tilde (`~vendor/model-latest`).
 *
 * @remarks
 * A naming rule of model slugs, read by the catalog when it looks a model's price up and by the ledger
 * when it looks a model's resolved snapshot up; it belongs to neither.
 */
export function aliasCandidates(slug: string): string[] {
  return slug.startsWith('~') ? [slug, slug.slice(1)] : [slug, `~${slug}`];
}
