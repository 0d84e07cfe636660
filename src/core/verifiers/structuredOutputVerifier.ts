/**
 * The structured-output check: the JSON in an answer (bare, or in a ```json fence), parsed and held
 * against the JSON Schema the caller gave.
 *
 * @remarks
 * A `plan` call that asked for JSON and got prose has failed, so "no JSON found" is a `fail`, not an
 * `unverified`: the check ran and the answer did not meet it. A schema keyword outside the
 * validator's subset is named in the reason rather than passed silently.
 */
import type { Answer, Check, Verifier } from './verifier';
import { validateJsonSchema } from './jsonSchema';
import { fencedBlocks } from './fencedBlocks';

export interface ExtractedJson {
  /** Where it came from: the whole answer, or the n-th fence (1-based). */
  source: 'bare' | `fence ${number}`;
  text: string;
}

/** Fenced blocks, found in time linear in the answer (fencedBlocks.ts); read here by every check that reads fences. */
export { fencedBlocks, type FencedBlock } from './fencedBlocks';

/** The JSON text of an answer: the whole answer if it is JSON, else the first ```json fence, else the first untagged fence. */
export function extractJson(text: string): ExtractedJson | undefined {
  const bare = text.trim();
  if (/^[[{]/.test(bare)) return { source: 'bare', text: bare };
  const blocks = fencedBlocks(text);
  const tagged = blocks.findIndex((block) => block.language === 'json' || block.language === 'jsonc');
  const index = tagged >= 0 ? tagged : blocks.findIndex((block) => block.language === '' && /^\s*[[{]/.test(block.body));
  const block = blocks[index];
  return block ? { source: `fence ${index + 1}`, text: block.body.trim() } : undefined;
}

export class StructuredOutputVerifier implements Verifier {
  readonly name = 'structured-output';
  readonly label: string;
  private readonly schema: unknown;

  /** `schema`: a JSON Schema; absent means "any JSON". */
  constructor(options: { schema?: unknown } = {}) {
    this.schema = options.schema;
    this.label = options.schema === undefined ? 'JSON' : 'JSON schema';
  }

  async verify(answer: Answer): Promise<Check> {
    const found = extractJson(answer.text);
    if (!found) return { verdict: 'fail', reason: 'no JSON found in the answer (neither bare nor in a ```json fence)' };
    let value: unknown;
    try {
      value = JSON.parse(found.text);
    } catch (error) {
      return { verdict: 'fail', reason: `JSON parse error (${found.source}): ${(error as Error).message}` };
    }
    if (this.schema === undefined) return { verdict: 'pass', reason: `valid JSON (${found.source}); no schema given` };
    const { errors, unsupported } = validateJsonSchema(value, this.schema);
    const unchecked = unsupported.length ? ` (not checked: ${unsupported.join(', ')})` : '';
    if (errors.length) return { verdict: 'fail', reason: `schema mismatch (${found.source}): ${errors.join('; ')}${unchecked}` };
    return { verdict: 'pass', reason: `JSON matches the schema (${found.source})${unchecked}` };
  }
}
