/**
 * The tool-call check: each call names a tool that was offered and sends arguments that parse and
 * match the tool's input schema; and, when the request needs one, there is a call at all.
 *
 * @remarks
 * Inline chat offered an edit tool and a small model answered in text: nothing was applied, and Rung
 * passed the text on without climbing. A call with broken arguments is no better — the editor turns
 * arguments that do not parse into `{ text }`, and the tool then fails on the user's side. The schemas
 * come from the editor and MCP servers, written for JSON Schema validators Rung is not: they are read
 * tolerantly (`validateJsonSchema`'s `tolerant`), so a keyword Rung cannot read never fails a model,
 * and what was not checked is said.
 */
import type { ToolSpec } from '../providers/provider';
import { jsonMistake } from './jsonAnswerVerifier';
import { validateJsonSchema } from './jsonSchema';
import type { Answer, Check, Verifier } from './verifier';

/** How many offered tools a reason names before it only counts the rest: agent mode offers dozens. */
const TOOLS_NAMED = 5;

export class ToolCallVerifier implements Verifier {
  readonly name = 'tool-calls';
  readonly label = 'tool call arguments';
  private readonly tools: readonly ToolSpec[];
  private readonly required: boolean;
  /** A text answer is judged only when a tool call is required (and then fails). */
  readonly judgesText: boolean;

  /** `tools`: those offered; `required`: an answer without a tool call fails. */
  constructor(options: { tools: readonly ToolSpec[]; required?: boolean }) {
    this.tools = options.tools;
    this.required = options.required === true;
    this.judgesText = this.required;
  }

  async verify(answer: Answer): Promise<Check> {
    const checks = this.required ? ['tool call', 'tool call arguments'] : ['tool call arguments'];
    if (answer.toolCalls.length === 0) {
      if (!this.required) return { verdict: 'unverified', reason: 'no tool call to check' };
      return {
        verdict: 'fail',
        reason: `answered in text where a tool call was needed (offered: ${offered(this.tools)})`,
        checks: ['tool call'],
      };
    }
    const unchecked = new Set<string>();
    for (const call of answer.toolCalls) {
      const tool = this.tools.find((candidate) => candidate.name === call.name);
      if (!tool) return { verdict: 'fail', reason: `called ${call.name}, which was not offered (offered: ${offered(this.tools)})`, checks };
      // No arguments at all is how several servers send a call to a tool that takes none.
      const text = call.arguments.trim() === '' ? '{}' : call.arguments;
      const mistake = jsonMistake(text);
      if (mistake) {
        const at = mistake.offset === undefined ? '' : ` at character ${mistake.offset + 1}`;
        return { verdict: 'fail', reason: `${call.name}: the arguments are not JSON: ${mistake.message}${at}`, checks };
      }
      const { errors, unsupported } = validateJsonSchema(JSON.parse(text), tool.parameters, { tolerant: true });
      if (errors.length > 0) return { verdict: 'fail', reason: `${call.name}: ${errors.map(argumentWords).join('; ')}`, checks };
      for (const keyword of unsupported) unchecked.add(keyword);
    }
    const names = [...new Set(answer.toolCalls.map((call) => call.name))].join(', ');
    const note = unchecked.size > 0 ? ` (not checked: ${[...unchecked].sort().join(', ')})` : '';
    const count = answer.toolCalls.length;
    return {
      verdict: 'pass',
      reason: `${count} tool call${count === 1 ? '' : 's'} (${names}) with arguments that match the tool's schema${note}`,
      checks,
    };
  }
}

/** A schema error put in terms of arguments: `$.line: expected integer` reads `argument line: expected integer`. */
function argumentWords(error: string): string {
  if (error.startsWith('$: ')) return `the arguments: ${error.slice(3)}`.replace('missing required property', 'missing required argument');
  return error.replace(/^\$\.?/, 'argument ');
}

function offered(tools: readonly ToolSpec[]): string {
  if (tools.length === 0) return 'none';
  const named = tools.slice(0, TOOLS_NAMED).map((tool) => tool.name);
  return tools.length > TOOLS_NAMED ? `${named.join(', ')} and ${tools.length - TOOLS_NAMED} more` : named.join(', ');
}
