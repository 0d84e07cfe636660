import { describe, expect, it } from 'vitest';
import type { ToolCall, ToolSpec } from '../../../../src/core/providers/provider';
import { validateJsonSchema } from '../../../../src/core/verifiers/jsonSchema';
import { ToolCallVerifier } from '../../../../src/core/verifiers/toolCallVerifier';

/** An edit tool shaped as the editor offers its own: three required strings. */
const replaceString: ToolSpec = {
  name: 'replace_string_in_file',
  description: 'Replace a string in a file',
  parameters: {
    type: 'object',
    properties: { filePath: { type: 'string' }, oldString: { type: 'string' }, newString: { type: 'string' } },
    required: ['filePath', 'oldString', 'newString'],
  },
};

/** A tool shaped as an MCP server describes one (zod-to-json-schema): `$schema`, closed objects, a default. */
const editFile: ToolSpec = {
  name: 'edit_file',
  parameters: {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    additionalProperties: false,
    required: ['path', 'edits'],
    properties: {
      path: { type: 'string' },
      edits: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['oldText', 'newText'],
          properties: { oldText: { type: 'string' }, newText: { type: 'string' } },
        },
      },
      dryRun: { type: 'boolean', default: false },
    },
  },
};

const readFile: ToolSpec = {
  name: 'read_file',
  parameters: { type: 'object', properties: { path: { type: 'string' }, startLine: { type: 'integer' } }, required: ['path'] },
};

const call = (name: string, args: string, id = 'call-1'): ToolCall => ({ id, name, arguments: args });
const answer = (text: string, toolCalls: ToolCall[] = []) => ({ text, toolCalls, model: 'qwen2.5:3b' });

describe('ToolCallVerifier', () => {
  it('fails an answer in text where a tool call was needed, naming the tools offered', async () => {
    const check = await new ToolCallVerifier({ tools: [replaceString, readFile], required: true }).verify(
      answer('```ts\nconst x = 1;\n```'),
    );
    expect(check).toEqual({
      verdict: 'fail',
      reason: 'answered in text where a tool call was needed (offered: replace_string_in_file, read_file)',
      checks: ['tool call'],
    });
  });

  it('leaves a text answer unjudged when no tool call was needed', async () => {
    expect(await new ToolCallVerifier({ tools: [readFile] }).verify(answer('The file defines one function.'))).toEqual({
      verdict: 'unverified',
      reason: 'no tool call to check',
    });
  });

  it('passes calls whose arguments match their schemas, and says which checks judged it', async () => {
    const check = await new ToolCallVerifier({ tools: [replaceString, editFile], required: true }).verify(
      answer('', [
        call('replace_string_in_file', '{"filePath": "a.ts", "oldString": "x", "newString": "y"}'),
        call('edit_file', '{"path": "b.ts", "edits": [{"oldText": "1", "newText": "2"}]}', 'call-2'),
      ]),
    );
    expect(check).toEqual({
      verdict: 'pass',
      reason: "2 tool calls (replace_string_in_file, edit_file) with arguments that match the tool's schema",
      checks: ['tool call', 'tool call arguments'],
    });
  });

  it('fails a call to a tool that was not offered', async () => {
    const check = await new ToolCallVerifier({ tools: [readFile] }).verify(answer('', [call('delete_file', '{"path": "a.ts"}')]));
    expect(check).toMatchObject({ verdict: 'fail', reason: 'called delete_file, which was not offered (offered: read_file)' });
  });

  it('fails arguments that are not JSON, naming the tool and where they break', async () => {
    const check = await new ToolCallVerifier({ tools: [readFile] }).verify(answer('', [call('read_file', '{"path": "a.ts",}')]));
    expect(check).toMatchObject({
      verdict: 'fail',
      reason: 'read_file: the arguments are not JSON: Expected double-quoted property name at character 17',
    });
  });

  it('fails arguments that break the schema, naming the tool and each argument that was wrong', async () => {
    const missing = await new ToolCallVerifier({ tools: [replaceString] }).verify(
      answer('', [call('replace_string_in_file', '{"filePath": "a.ts", "oldString": "x"}')]),
    );
    expect(missing).toMatchObject({
      verdict: 'fail',
      reason: 'replace_string_in_file: the arguments: missing required argument "newString"',
    });
    const wrongType = await new ToolCallVerifier({ tools: [readFile] }).verify(
      answer('', [call('read_file', '{"path": "a.ts", "startLine": "ten"}')]),
    );
    expect(wrongType).toMatchObject({ verdict: 'fail', reason: 'read_file: argument startLine: expected integer, got string' });
    const nested = await new ToolCallVerifier({ tools: [editFile] }).verify(
      answer('', [call('edit_file', '{"path": "b.ts", "edits": [{"oldText": "1", "new": "2"}]}')]),
    );
    expect(nested).toMatchObject({
      verdict: 'fail',
      reason: 'edit_file: argument edits[0]: missing required property "newText"; argument edits[0]: unexpected property "new"',
    });
  });

  it('reads a call with no arguments at all as an empty object', async () => {
    const noArguments: ToolSpec = { name: 'list_open_editors', parameters: { type: 'object', properties: {} } };
    expect((await new ToolCallVerifier({ tools: [noArguments] }).verify(answer('', [call('list_open_editors', '')]))).verdict).toBe('pass');
  });

  it('never fails a call for a keyword it cannot read, and says what it did not check', async () => {
    // A schema converted from OpenAPI (`nullable`), a `$ref` into definitions it cannot follow, a
    // closed object whose other properties come from `patternProperties`, and draft 3's `any` type.
    const tool: ToolSpec = {
      name: 'create_issue',
      parameters: {
        type: 'object',
        required: ['title'],
        additionalProperties: false,
        patternProperties: { '^x-': { type: 'string' } },
        properties: {
          title: { type: 'string' },
          milestone: { type: 'integer', nullable: true },
          labels: { $ref: '#/definitions/labels' },
          extra: { type: 'any' },
        },
      },
    };
    const check = await new ToolCallVerifier({ tools: [tool] }).verify(
      answer('', [call('create_issue', '{"title": "Crash", "milestone": null, "labels": "bug", "extra": 3, "x-trace": "1"}')]),
    );
    expect(check).toMatchObject({
      verdict: 'pass',
      reason: "1 tool call (create_issue) with arguments that match the tool's schema (not checked: $ref, patternProperties)",
    });
    // What it can read it still holds: the title must be a string.
    expect((await new ToolCallVerifier({ tools: [tool] }).verify(answer('', [call('create_issue', '{"title": 7}')]))).verdict).toBe('fail');
  });
});

describe('validateJsonSchema, read tolerantly', () => {
  it('holds a caller-written schema as written, where a tolerant reading lets an unread keyword decide', () => {
    const schema = { type: 'object', additionalProperties: false, patternProperties: { '^x-': {} } };
    expect(validateJsonSchema({ 'x-a': 1 }, schema).errors).toEqual(['$: unexpected property "x-a"']);
    expect(validateJsonSchema({ 'x-a': 1 }, schema, { tolerant: true }).errors).toEqual([]);
    expect(validateJsonSchema(null, { type: 'string', nullable: true }).errors).toEqual(['$: expected string, got null']);
    expect(validateJsonSchema(null, { type: 'string', nullable: true }, { tolerant: true }).errors).toEqual([]);
  });
});
