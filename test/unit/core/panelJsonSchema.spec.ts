import { describe, expect, it } from 'vitest';
import { PANEL_FIELD_DESCRIPTIONS, panelJsonSchema, schemaFieldPaths } from '../../../src/core/panelJsonSchema';

/** The value at `path` inside a schema; undefined where there is none (which the `expect` then shows). */
function at(schema: unknown, ...path: string[]): unknown {
  return path.reduce<unknown>(
    (value, key) => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined),
    schema,
  );
}

describe("the panel file's JSON Schema", () => {
  it('describes every field the panel schema has, and only those', () => {
    const paths = schemaFieldPaths(panelJsonSchema());
    expect(paths.filter((path) => PANEL_FIELD_DESCRIPTIONS[path] === undefined)).toEqual([]);
    expect(Object.keys(PANEL_FIELD_DESCRIPTIONS).filter((path) => !paths.includes(path))).toEqual([]);
  });

  it('refuses unknown keys and lists the choices, so the editor underlines a misspelt key and completes a role', () => {
    const schema = panelJsonSchema();
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(['models']);
    const model = at(schema, 'properties', 'models', 'items');
    expect(at(model, 'additionalProperties')).toBe(false);
    expect(at(model, 'properties', 'price', 'additionalProperties')).toBe(false);
    expect(at(model, 'properties', 'role', 'enum')).toEqual(['base', 'mid', 'top']);
    expect(at(schema, 'properties', 'routing', 'properties', 'tradeoff', 'enum')).toEqual(['quality', 'economy']);
    expect(at(schema, 'properties', 'providers', 'additionalProperties', 'properties', 'kind', 'enum')).toContain('openai-compatible');
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
  });
});
