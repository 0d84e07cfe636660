/**
 * A JSON Schema validator for the subset structured-output checks use: `type`, `properties`,
 * `required`, `items`, `enum`, `const` and `additionalProperties`.
 *
 * @remarks
 * Written here rather than taken from `ajv` because the schemas a chat call asks for are small and
 * flat, the subset is sixty lines, and ajv compiles schemas with `new Function`, which a strict
 * webview CSP forbids should the check ever run there. Keywords outside the subset are not silently
 * treated as satisfied: they are reported, so a verdict can say what it did not check.
 */

/** Keywords this validator reads. */
const SUPPORTED = new Set(['type', 'properties', 'required', 'items', 'enum', 'const', 'additionalProperties']);
/** Keywords that describe without constraining, and so need no support. */
const ANNOTATIONS = new Set(['$schema', '$id', 'title', 'description', 'default', 'examples', '$comment']);
/** The first few violations say enough; a list of hundreds says nothing more. */
const MAX_ERRORS = 5;

export interface SchemaCheck {
  /** One line each: where, and what was wrong (`$.items[2].name: expected string, got number`). */
  errors: string[];
  /** Keywords the schema uses that were not checked, sorted. */
  unsupported: string[];
}

export function validateJsonSchema(value: unknown, schema: unknown): SchemaCheck {
  const errors: string[] = [];
  const unsupported = new Set<string>();
  visit(value, schema, '$', errors, unsupported);
  return { errors: errors.slice(0, MAX_ERRORS), unsupported: [...unsupported].sort() };
}

function visit(value: unknown, schema: unknown, path: string, errors: string[], unsupported: Set<string>): void {
  if (schema === true || schema === undefined) return;
  if (schema === false) {
    errors.push(`${path}: not allowed`);
    return;
  }
  if (!isObject(schema)) return;
  for (const key of Object.keys(schema)) if (!SUPPORTED.has(key) && !ANNOTATIONS.has(key)) unsupported.add(key);

  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((type) => typeof type === 'string' && hasType(value, type))) {
      errors.push(`${path}: expected ${types.join(' or ')}, got ${typeName(value)}`);
      return;
    }
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => sameJson(option, value))) {
    errors.push(`${path}: expected one of ${schema.enum.map((option) => JSON.stringify(option)).join(', ')}, got ${JSON.stringify(value)}`);
  }
  if ('const' in schema && !sameJson(schema.const, value)) {
    errors.push(`${path}: expected ${JSON.stringify(schema.const)}, got ${JSON.stringify(value)}`);
  }
  if (isObject(value)) {
    // Own properties only: `in` also sees Object.prototype, so `required: ["toString"]` would pass on
    // `{}` and a `"constructor"` key would count as declared and slip past `additionalProperties: false`.
    const properties = isObject(schema.properties) ? schema.properties : {};
    if (Array.isArray(schema.required)) {
      for (const name of schema.required) {
        if (typeof name === 'string' && !Object.hasOwn(value, name)) errors.push(`${path}: missing required property "${name}"`);
      }
    }
    for (const [name, child] of Object.entries(value)) {
      const childPath = /^[A-Za-z_$][\w$]*$/.test(name) ? `${path}.${name}` : `${path}[${JSON.stringify(name)}]`;
      if (Object.hasOwn(properties, name)) visit(child, properties[name], childPath, errors, unsupported);
      else if (schema.additionalProperties === false) errors.push(`${path}: unexpected property "${name}"`);
      else if (isObject(schema.additionalProperties)) visit(child, schema.additionalProperties, childPath, errors, unsupported);
    }
  }
  if (Array.isArray(value) && schema.items !== undefined) {
    value.forEach((item, index) => visit(item, schema.items, `${path}[${index}]`, errors, unsupported));
  }
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
    default:
      return false;
  }
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && Number.isInteger(value)) return 'integer';
  return typeof value;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (isObject(value)) return Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical(value[key])]));
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
