import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { parsePanel, parsePanelText, PanelError, panelSchema } from '../../../src/core/panel';
import { describePanelIssues, issuePosition } from '../../../src/core/panelIssues';

/** zod's own English wording: none of it may reach a user. */
const ZOD_WORDING =
  /Invalid (input|option|string|URL|number|key|value)|Too (big|small)|Unrecognized key|expected \w+, received|to be [<>]=?/;

function issuesOfText(text: string): string[] {
  try {
    parsePanelText(text, '/w/.rung/panel.json');
  } catch (error) {
    if (error instanceof PanelError) return error.issues;
    throw error;
  }
  throw new Error('the panel was accepted');
}

// Every kind of mistake the schema can see, one per line, so each position is easy to read off.
const BROKEN = `{
  "models": [
    {
      "slug": "qwen2.5:3b",
      "provider": "ollama",
      "role": "bse",
      "context": "32k",
      "tools": "yes",
      "maxConcurrent": 1.5,
      "price": { "input": 0.1, "outptu": 0.2 }
    },
    { "slug": "", "provider": "ollama", "contextWindow": 4096 }
  ],
  "maxOutputPrice": -1,
  "diversity": { "maxTotalPerProvider": 0 },
  "routing": { "explore": 3, "tradeof": "economy" },
  "providers": { "lan": { "kind": "ollama", "baseUrl": "not a url" } }
}
`;

describe('the invalid-panel message', () => {
  it("says every mistake in Rung's words, with none of zod's phrases", () => {
    const issues = issuesOfText(BROKEN);
    expect(issues).toHaveLength(12);
    for (const issue of issues) expect(issue).not.toMatch(ZOD_WORDING);
    expect(issues).toEqual([
      'models[0].role: must be one of "base", "mid" or "top", not "bse"; did you mean "base"? (line 6 column 15)',
      'models[0].price: unknown key "outptu"; did you mean "output"? (line 10 column 32)',
      'models[0].context: must be a whole number of tokens, not "32k" (line 7 column 18)',
      'models[0].tools: must be true or false, not "yes" (line 8 column 16)',
      'models[0].maxConcurrent: must be a whole number, not 1.5 (line 9 column 24)',
      'models[1].slug: must not be empty (line 12 column 15)',
      'models[1]: unknown key "contextWindow"; did you mean "context"? (line 12 column 41)',
      'maxOutputPrice: must be more than 0, not -1 (line 14 column 21)',
      'diversity.maxTotalPerProvider: must be at least 1, not 0 (line 15 column 41)',
      'routing.explore: must be at most 1 (line 16 column 27)',
      'routing: unknown key "tradeof"; did you mean "tradeoff"? (line 16 column 30)',
      'providers.lan.baseUrl: must be a URL such as http://127.0.0.1:8080/v1, not "not a url" (line 17 column 56)',
    ]);
  });

  it('says where each mistake is as the editor counts lines and columns', () => {
    const lines = BROKEN.split('\n');
    for (const issue of issuesOfText(BROKEN)) {
      const position = issuePosition(issue);
      expect(position, issue).toBeDefined();
      const { line, column } = position as { line: number; column: number };
      // The position is the mistake's own key or value: the text there starts with what the line names.
      const at = (lines[line - 1] ?? '').slice(column - 1);
      const named = /unknown key "([^"]+)"/.exec(issue)?.[1];
      if (named) expect(at.startsWith(`"${named}"`), issue).toBe(true);
      else expect(at, issue).toMatch(/^("|-?\d|\{|\[)/);
    }
  });

  it('suggests the key a misspelt one meant, and does not also call the meant key missing', () => {
    const issues = issuesOfText('{ "models": [{ "slug": "a", "provider": "ollama", "price": { "input": 1, "outptu": 2 } }] }');
    expect(issues).toEqual(['models[0].price: unknown key "outptu"; did you mean "output"? (line 1 column 74)']);
  });

  it('lists the keys an object takes when an unknown one is like none of them', () => {
    expect(issuesOfText('{ "models": [{ "slug": "a", "provider": "ollama" }], "routing": { "banana": 1 } }')).toEqual([
      'routing: unknown key "banana" (the keys here: explore, requireEvidence, tradeoff, explorePaid, exploreMeasured, attemptTimeoutSeconds, promptSignal, waitWorth) (line 1 column 67)',
    ]);
  });

  it('says that a required field is missing, where the object that lacks it is', () => {
    expect(issuesOfText('{\n  "models": [\n    { "slug": "a" }\n  ]\n}')).toEqual(['models[0].provider: is missing (line 3 column 5)']);
  });

  it('says where a mistake found after the schema (a slug listed twice, an unknown provider) is', () => {
    const text = '{\n  "models": [\n    { "slug": "a", "provider": "ollama" },\n    { "slug": "a", "provider": "acme" }\n  ]\n}';
    expect(issuesOfText(text)).toEqual([
      'models[1].slug: "a" is listed twice (line 4 column 15)',
      'models[1].provider: unknown provider "acme" (declare it under "providers") (line 4 column 32)',
    ]);
  });

  it('keeps a message the schema wrote itself, with where it is', () => {
    const text =
      '{ "models": [{ "slug": "a", "provider": "acme" }], "providers": { "acme": { "kind": "openai-compatible", "key": "sk-secret" } } }';
    const [issue] = issuesOfText(text);
    expect(issue).toMatch(
      /^providers\.acme\.key: must be "required" or "none"; the key itself never goes in the panel .*\(line 1 column 113\)$/,
    );
    expect(issue).not.toContain('sk-secret');
  });

  it('counts columns on the first line without the byte-order mark a Windows editor writes', () => {
    expect(issuesOfText('\ufeff{ "models": [], "x": 1 }')).toEqual([
      'models: must list at least one entry (line 1 column 13)',
      '(top level): unknown key "x" (the keys here: models, maxOutputPrice, diversity, profiles, routing, providers) (line 1 column 17)',
    ]);
  });

  it('says no place when the panel came from a setting rather than a file', () => {
    expect(() => parsePanel({ models: [{ slug: 'a', provider: 'ollama', role: 'top!' }] }, 'rung.panel')).toThrow(
      /models\[0\]\.role: must be one of "base", "mid" or "top", not "top!"; did you mean "top"\?$/,
    );
  });

  it("puts a pattern check in Rung's words too, for checks the schema may grow", () => {
    const schema = z.strictObject({ slug: z.string().regex(/^[a-z0-9:.-]+$/) });
    const json = { slug: 'Bad Slug!' };
    const parsed = schema.safeParse(json);
    expect(parsed.success).toBe(false);
    const [issue] = describePanelIssues(parsed.error?.issues ?? [], schema, json);
    expect(issue).toBe('slug: "Bad Slug!" does not have the form this field takes (/^[a-z0-9:.-]+$/)');
    expect(issue).not.toMatch(ZOD_WORDING);
  });

  it("reads the keys it suggests off the schema it is given, the panel's own at the top level", () => {
    expect(describePanelIssues(panelSchema.safeParse({ modls: [] }).error?.issues ?? [], panelSchema, { modls: [] })).toEqual([
      '(top level): unknown key "modls"; did you mean "models"?',
    ]);
  });
});

describe('a panel file of many small mistakes', () => {
  /** `{"models":[1,1,…]}` just under the 1 MiB a panel file may be: half a million mistakes as written. */
  function ones(): string {
    return `{"models":[${Array.from({ length: 524_000 }, () => '1').join(',')}]}`;
  }

  it('is one issue when it lists more models than a panel takes, the list read no further', () => {
    const text = ones();
    expect(text.length).toBeLessThan(1024 * 1024);
    expect(issuesOfText(text)).toEqual(['models: must list at most 1000 entries (line 1 column 11)']);
  });

  it('says the first twenty issues where they are, and counts the rest', () => {
    const keys = Array.from({ length: 60_000 }, (_, index) => `"extra${index}": 1`);
    const issues = issuesOfText(`{"models":[{"slug":"m","provider":"ollama",\n${keys.join(',\n')}\n}]}`);
    expect(issues).toHaveLength(21);
    expect(issues[0]).toBe(
      'models[0]: unknown key "extra0" (the keys here: slug, provider, role, price, context, tools, maxConcurrent) (line 2 column 1)',
    );
    expect(issues[19]).toMatch(/^models\[0\]: unknown key "extra19" .* \(line 21 column 1\)$/);
    expect(issues[20]).toBe('and 59,980 more issues');
  });

  it('counts the mistakes found after the schema and the unsafe names alike', () => {
    const listedTwice = issuesOfText(JSON.stringify({ models: Array.from({ length: 1_000 }, () => ({ slug: 'a', provider: 'ollama' })) }));
    expect(listedTwice).toHaveLength(21);
    expect(listedTwice.at(-1)).toBe('and 979 more issues');
    const unsafe = issuesOfText(JSON.stringify({ models: Array.from({ length: 30 }, () => ({ slug: 'a', provider: 'constructor' })) }));
    expect(unsafe).toHaveLength(21);
    expect(unsafe.at(-1)).toBe('and 10 more issues');
  });

  it('says a mistake in lists nested too deep to walk again, rather than overflowing the stack', () => {
    // Valid JSON that JSON.parse reads, but jsonc-parser, which finds the place, recurses into each list:
    // `rung rank` failed with "Maximum call stack size exceeded" and exit 1, not the invalid-panel message.
    const depth = 400_000;
    const text = `{"models":[{"slug":"a","provider":"ollama","extra":${'['.repeat(depth)}${']'.repeat(depth)}}]}`;
    expect(text.length).toBeLessThan(1024 * 1024);
    expect(issuesOfText(text)).toEqual([expect.stringMatching(/^models\[0\]: unknown key "extra"/)]);
    expect(issuesOfText(`{"models":${'['.repeat(depth)}${']'.repeat(depth)}}`)).toEqual([expect.stringMatching(/^models\[0\]: /)]);
  });

  it('refuses a map of providers or profiles larger than a panel takes before reading its entries', () => {
    const providers = Object.fromEntries(Array.from({ length: 1_001 }, (_, index) => [`p${index}`, { kind: 'nonsense' }]));
    expect(issuesOfText(JSON.stringify({ models: [{ slug: 'a', provider: 'ollama' }], providers }))).toEqual([
      'providers: lists 1,001 entries; a panel lists at most 1,000 (line 1 column 58)',
    ]);
  });
});
