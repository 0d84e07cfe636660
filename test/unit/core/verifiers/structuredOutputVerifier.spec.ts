import { describe, expect, it } from 'vitest';
import { extractJson, StructuredOutputVerifier } from '../../../../src/core/verifiers/structuredOutputVerifier';
import { schemaProblems, validateJsonSchema } from '../../../../src/core/verifiers/jsonSchema';

const answer = (text: string) => ({ text, toolCalls: [], model: 'qwen2.5:3b' });
const planSchema = {
  type: 'object',
  required: ['title', 'steps'],
  additionalProperties: false,
  properties: {
    title: { type: 'string' },
    priority: { enum: ['low', 'high'] },
    steps: {
      type: 'array',
      items: { type: 'object', required: ['id'], properties: { id: { type: 'integer' }, done: { type: 'boolean' } } },
    },
  },
};

describe('StructuredOutputVerifier', () => {
  it('passes bare JSON that matches the schema', async () => {
    const check = await new StructuredOutputVerifier({ schema: planSchema }).verify(
      answer('{"title":"ship","steps":[{"id":1},{"id":2,"done":true}]}'),
    );
    expect(check).toEqual({ verdict: 'pass', reason: 'JSON matches the schema (bare)' });
  });

  it('passes JSON in a ```json fence surrounded by prose', async () => {
    const text = 'Here is the plan:\n\n```json\n{"title": "ship", "steps": []}\n```\n\nLet me know.';
    const check = await new StructuredOutputVerifier({ schema: planSchema }).verify(answer(text));
    expect(check).toEqual({ verdict: 'pass', reason: 'JSON matches the schema (fence 1)' });
  });

  it('fails an answer with no JSON in it', async () => {
    const check = await new StructuredOutputVerifier({ schema: planSchema }).verify(answer('Sure! The plan is to ship it.'));
    expect(check.verdict).toBe('fail');
    expect(check.reason).toMatch(/no JSON found/);
  });

  it('fails JSON that does not parse, saying why', async () => {
    const check = await new StructuredOutputVerifier({ schema: planSchema }).verify(answer('```json\n{"title": "ship", "steps": [}\n```'));
    expect(check.verdict).toBe('fail');
    expect(check.reason).toMatch(/^JSON parse error \(fence 1\): /);
  });

  it('fails JSON that breaks the schema and names every path that broke', async () => {
    const check = await new StructuredOutputVerifier({ schema: planSchema }).verify(
      answer('{"title": 7, "priority": "urgent", "steps": [{"id": 1.5}, {}], "extra": true}'),
    );
    expect(check.verdict).toBe('fail');
    expect(check.reason).toBe(
      'schema mismatch (bare): $.title: expected string, got integer; $.priority: expected one of "low", "high", got "urgent"; $.steps[0].id: expected integer, got number; $.steps[1]: missing required property "id"; $: unexpected property "extra"',
    );
  });

  it('passes any JSON when no schema is given', async () => {
    expect((await new StructuredOutputVerifier().verify(answer('[1, 2, 3]'))).verdict).toBe('pass');
  });

  it('says which schema keywords it did not check', async () => {
    const check = await new StructuredOutputVerifier({ schema: { type: 'string', pattern: '^a', minLength: 2 } }).verify(
      answer('```json\n"abc"\n```'),
    );
    expect(check).toEqual({ verdict: 'pass', reason: 'JSON matches the schema (fence 1) (not checked: minLength, pattern)' });
  });
});

describe('extractJson', () => {
  it('prefers a json-tagged fence over an earlier fence of another language', () => {
    const text = '```bash\nnpm test\n```\n\n```json\n{"ok": true}\n```';
    expect(extractJson(text)).toEqual({ source: 'fence 2', text: '{"ok": true}' });
  });

  it('takes an untagged fence that holds JSON when no fence is tagged', () => {
    expect(extractJson('Result:\n```\n[1]\n```')).toEqual({ source: 'fence 1', text: '[1]' });
  });
});

describe('validateJsonSchema', () => {
  it('checks additionalProperties given as a schema, const and union types', () => {
    const schema = {
      type: 'object',
      additionalProperties: { type: 'number' },
      properties: { kind: { const: 'point' }, label: { type: ['string', 'null'] } },
    };
    expect(validateJsonSchema({ kind: 'point', label: null, x: 1, y: 2 }, schema).errors).toEqual([]);
    expect(validateJsonSchema({ kind: 'line', label: 3, x: 'a' }, schema).errors).toEqual([
      '$.kind: expected "point", got "line"',
      '$.label: expected string or null, got integer',
      '$.x: expected number, got string',
    ]);
  });

  it('does not count inherited properties as present: a required "toString" is missing', () => {
    const schema = { type: 'object', required: ['toString'] };
    expect(validateJsonSchema({}, schema).errors).toEqual(['$: missing required property "toString"']);
  });

  it('rejects a "constructor" key under additionalProperties: false', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false };
    expect(validateJsonSchema(JSON.parse('{"city": "Paris", "constructor": 1}'), schema).errors).toEqual([
      '$: unexpected property "constructor"',
    ]);
  });
});

describe('schemaProblems', () => {
  it('finds nothing wrong with a schema the validator reads whole, booleans and annotations included', () => {
    expect(schemaProblems(planSchema)).toEqual([]);
    expect(schemaProblems(true)).toEqual([]);
    expect(
      schemaProblems({
        $schema: 'http://json-schema.org/draft-07/schema#',
        title: 'any',
        type: ['string', 'null'],
        additionalProperties: false,
      }),
    ).toEqual([]);
  });

  it('leaves keywords outside the subset to be reported as not checked, not refused', () => {
    expect(schemaProblems({ type: 'string', pattern: '^a', minLength: 2 })).toEqual([]);
  });

  it('refuses an unknown type name, which would fail every answer, naming where it is and the names there are', () => {
    expect(schemaProblems({ type: 'nonsense' })).toEqual([
      '#/type: unknown type "nonsense" (the types are array, boolean, integer, null, number, object, string)',
    ]);
    expect(schemaProblems({ type: 'object', properties: { 'a/b': { type: ['string', 'text'] } } })).toEqual([
      '#/properties/a~1b/type: unknown type "text" (the types are array, boolean, integer, null, number, object, string)',
    ]);
    expect(schemaProblems({ type: [] })).toEqual(['#/type: an empty list allows nothing']);
    expect(schemaProblems({ type: 3 })).toEqual(['#/type: a type is a name, not a number (3)']);
  });

  it('refuses a schema that is not an object or a boolean, which would pass every answer', () => {
    expect(schemaProblems([1, 2])).toEqual(['#: a schema is an object or a boolean, not an array']);
    expect(schemaProblems('object')).toEqual(['#: a schema is an object or a boolean, not a string ("object")']);
    expect(schemaProblems(null)).toEqual(['#: a schema is an object or a boolean, not null']);
    expect(schemaProblems({ type: 'array', items: 'string' })).toEqual([
      '#/items: a schema is an object or a boolean, not a string ("string")',
    ]);
  });

  it("refuses the subset's own keywords in a shape the validator would skip without a word", () => {
    expect(
      schemaProblems({ properties: ['city'], required: 'city', enum: 'a', additionalProperties: 'no', items: [{ type: 'string' }] }),
    ).toEqual([
      '#/properties: must be an object of schemas, not an array',
      '#/required: must be a list of property names, not a string ("city")',
      '#/items: a list of schemas (the tuple form) is not supported; give one schema for every item',
      '#/enum: must be a list of the allowed values, not a string ("a")',
      '#/additionalProperties: a schema is an object or a boolean, not a string ("no")',
    ]);
  });

  it('agrees with the validator: each schema it refuses is one the validator misreads', () => {
    // Without the refusal these grade a right answer down, or pass a wrong one.
    expect(validateJsonSchema({ a: 1 }, { type: 'nonsense' }).errors).not.toEqual([]);
    expect(validateJsonSchema('anything', [1, 2]).errors).toEqual([]);
    expect(validateJsonSchema('no', { enum: 'yes' }).errors).toEqual([]);
  });
});
