/**
 * A JSON Schema validator for the subset structured-output checks use: `type`, `properties`,
 * `required`, `items`, `enum`, `const` and `additionalProperties`.
 *
 * @remarks
 * Written here rather than taken from `ajv` because the schemas a chat call asks for are small and
 * flat, the subset is sixty lines, and ajv compiles schemas with `new Function`, which a strict
 * webview CSP forbids should the check ever run there. Keywords outside the subset are not silently
 * treated as satisfied: they are reported, so a verdict can say what it did not check. A schema the
 * subset cannot read is refused before any model is asked ({@link schemaProblems}).
 */

/** Keywords this validator reads. */
const SUPPORTED = new Set(['type', 'properties', 'required', 'items', 'enum', 'const', 'additionalProperties']);
/** Keywords that describe without constraining, and so need no support. */
const ANNOTATIONS = new Set(['$schema', '$id', 'title', 'description', 'default', 'examples', '$comment']);
/** The first few violations say enough; a list of hundreds says nothing more. */
const MAX_ERRORS = 5;
/** The names `type` may use: JSON Schema's seven, which {@link hasType} knows. */
const TYPE_NAMES = ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'];

/** A caller's schema that {@link validateJsonSchema} cannot hold an answer against; `problems` says why. */
export class InvalidSchemaError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`the JSON Schema cannot be used: ${problems.join('; ')}`);
    this.name = 'InvalidSchemaError';
  }
}

/**
 * What is wrong with `schema` as one this validator can check answers against, one line each
 * (`#/properties/city/type: unknown type "text" (the types are array, boolean, …)`); empty when nothing is.
 *
 * @remarks
 * Asked before any model is: a schema the validator misreads fails every answer (`{"type": "nonsense"}`
 * graded every rung down, each one paid for) or passes every one (`[1, 2]` is no schema and checked
 * nothing), and either way the models are graded for the caller's mistake. Only the subset's own
 * keywords are held to their shape, because a malformed one is otherwise skipped without a word (an
 * `enum` that is not a list, `required: "id"`); other keywords stay as before, reported as not checked.
 * The tuple form of `items` (a list of schemas) is refused rather than reported, since `visit` would read
 * it as no constraint at all. Places are JSON Pointers into the schema, `#` its root.
 */
export function schemaProblems(schema: unknown): string[] {
  const problems: string[] = [];
  inspect(schema, '#', problems);
  return problems.slice(0, MAX_ERRORS);
}

function inspect(schema: unknown, at: string, problems: string[]): void {
  if (typeof schema === 'boolean') return;
  if (!isObject(schema)) {
    problems.push(`${at}: a schema is an object or a boolean, not ${describe(schema)}`);
    return;
  }
  if (schema.type !== undefined) {
    const types: unknown[] = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (types.length === 0) problems.push(`${at}/type: an empty list allows nothing`);
    for (const type of types) {
      if (typeof type !== 'string') problems.push(`${at}/type: a type is a name, not ${describe(type)}`);
      else if (!TYPE_NAMES.includes(type))
        problems.push(`${at}/type: unknown type ${JSON.stringify(type)} (the types are ${TYPE_NAMES.join(', ')})`);
    }
  }
  if (schema.properties !== undefined) {
    if (!isObject(schema.properties)) problems.push(`${at}/properties: must be an object of schemas, not ${describe(schema.properties)}`);
    else for (const [name, child] of Object.entries(schema.properties)) inspect(child, `${at}/properties/${pointerToken(name)}`, problems);
  }
  if (schema.required !== undefined && !(Array.isArray(schema.required) && schema.required.every((name) => typeof name === 'string'))) {
    problems.push(`${at}/required: must be a list of property names, not ${describe(schema.required)}`);
  }
  if (Array.isArray(schema.items))
    problems.push(`${at}/items: a list of schemas (the tuple form) is not supported; give one schema for every item`);
  else if (schema.items !== undefined) inspect(schema.items, `${at}/items`, problems);
  if (schema.enum !== undefined && !Array.isArray(schema.enum))
    problems.push(`${at}/enum: must be a list of the allowed values, not ${describe(schema.enum)}`);
  if (schema.additionalProperties !== undefined) inspect(schema.additionalProperties, `${at}/additionalProperties`, problems);
}

/** A JSON value's kind and, when short, the value: `a string ("no")`, `an array`. */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const shown = JSON.stringify(value) ?? String(value);
  return `${typeof value === 'string' ? 'a string' : `a ${typeof value}`}${shown.length <= 40 ? ` (${shown})` : ''}`;
}

/** `name` as one JSON Pointer token: `~` and `/` escaped (RFC 6901). */
function pointerToken(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}

export interface SchemaCheck {
  /** One line each: where, and what was wrong (`$.items[2].name: expected string, got number`). */
  errors: string[];
  /** Keywords the schema uses that were not checked, sorted. */
  unsupported: string[];
}

export interface ValidateOptions {
  /**
   * Read a schema Rung did not write and cannot send back (a tool's input schema from the editor or an
   * MCP server) so that nothing Rung cannot read fails a value: see {@link visit}.
   */
  tolerant?: boolean;
}

export function validateJsonSchema(value: unknown, schema: unknown, options: ValidateOptions = {}): SchemaCheck {
  const errors: string[] = [];
  const unsupported = new Set<string>();
  visit(value, schema, '$', errors, unsupported, options.tolerant === true);
  return { errors: errors.slice(0, MAX_ERRORS), unsupported: [...unsupported].sort() };
}

/** Keywords beside which the tolerant reading skips `additionalProperties`: each can declare or allow a property Rung does not see. */
const DECLARES_PROPERTIES = [
  'patternProperties',
  'allOf',
  'anyOf',
  'oneOf',
  'if',
  'then',
  'else',
  'dependentSchemas',
  'dependencies',
  'unevaluatedProperties',
  '$ref',
  '$dynamicRef',
];

/**
 * Holds `value` against `schema` at `path`, adding what broke to `errors` and the keywords it could
 * not read to `unsupported`.
 *
 * @remarks
 * A caller's schema was refused before any model was asked if the subset could not read it
 * ({@link schemaProblems}), so it is read as written. A tool's schema cannot be refused: the model is
 * only offered the tool. Read `tolerant`ly, a keyword Rung cannot read never fails a value: a level
 * with a `$ref` is not checked at all (before JSON Schema 2019-09 a `$ref` made its siblings void, and
 * Rung cannot tell the draft); a `type` outside the seven names (draft 3's `any`) is not checked;
 * OpenAPI's `nullable: true`, which schemas converted from OpenAPI carry, lets `null` through; and
 * `additionalProperties` is not held where a keyword beside it ({@link DECLARES_PROPERTIES}) may
 * declare the very property it would reject.
 */
function visit(value: unknown, schema: unknown, path: string, errors: string[], unsupported: Set<string>, tolerant: boolean): void {
  if (schema === true || schema === undefined) return;
  if (schema === false) {
    errors.push(`${path}: not allowed`);
    return;
  }
  if (!isObject(schema)) return;
  const unread = Object.keys(schema).filter((key) => !SUPPORTED.has(key) && !ANNOTATIONS.has(key) && !(tolerant && key === 'nullable'));
  for (const key of unread) unsupported.add(key);
  if (tolerant && '$ref' in schema) return;
  if (tolerant && schema.nullable === true && value === null) return;

  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    const readable = !tolerant || types.every((type) => typeof type === 'string' && TYPE_NAMES.includes(type));
    if (readable && !types.some((type) => typeof type === 'string' && hasType(value, type))) {
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
    const holdsAdditional = !tolerant || !DECLARES_PROPERTIES.some((key) => key in schema);
    for (const [name, child] of Object.entries(value)) {
      const childPath = /^[A-Za-z_$][\w$]*$/.test(name) ? `${path}.${name}` : `${path}[${JSON.stringify(name)}]`;
      if (Object.hasOwn(properties, name)) visit(child, properties[name], childPath, errors, unsupported, tolerant);
      else if (!holdsAdditional) continue;
      else if (schema.additionalProperties === false) errors.push(`${path}: unexpected property "${name}"`);
      else if (isObject(schema.additionalProperties)) visit(child, schema.additionalProperties, childPath, errors, unsupported, tolerant);
    }
  }
  if (Array.isArray(value) && schema.items !== undefined) {
    value.forEach((item, index) => visit(item, schema.items, `${path}[${index}]`, errors, unsupported, tolerant));
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
  if (isObject(value))
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical(value[key])]),
    );
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
