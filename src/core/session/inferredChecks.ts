/**
 * The checks a request implies, read from the request itself: the rules that give every front end
 * (Rung Auto, inline chat, `@rung`, `vscode.lm` callers, `rung chat`) the same checks without one of
 * them writing a rule of its own.
 *
 * @remarks
 * Without them, every request a user typed was routed as `chat` with no check at all, so a small
 * model's invalid JSON, its prose where an edit tool was offered, or its broken snippet stood as the
 * answer. The rules, in order:
 *
 * 1. **JSON.** The caller set a JSON response format (`chatOptions.json`), or the words of the request
 *    ask for the answer in JSON → the answer must hold JSON that parses.
 * 2. **A tool call.** Tools are offered and a change is asked for → an answer in text fails. A front
 *    end may say so (`checks.toolCall: 'required'`: inline chat always does) or say not (`'optional'`);
 *    otherwise it is read from the words, and only when a tool that writes files is offered (by what
 *    the tool does: {@link writesFiles}).
 *    Once the turn has acted (a tool call or its result follows the request: an agent summing up what
 *    it did), no further call is needed.
 * 3. **Code.** The class is `edit`, or the words ask for code to be written or changed → the blocks of
 *    the answer are syntax-checked, as fragments (a method need not parse outside its class).
 * 4. **An edit needs code.** An answer to a front end's `edit` call with neither a code block nor a
 *    tool call fails.
 *
 * Reading the words errs towards silence: a check the request did not ask for fails good answers and
 * grades the model down for the reader's mistake (an explanation of some JSON failed for not *being*
 * JSON), while a check left out only leaves an answer unchecked, as it was before. So each rule wants
 * an imperative aimed at the answer ("Return … as JSON", "Fix …"), never a question about one ("Why
 * does this JSON fail to parse?", "How do I return JSON?"), and only the request's own words are read:
 * not code blocks, not attached files, not the editor's context.
 */
import { shaped, splitClassKey } from '../classKey';
import type { ChatMessage, ToolSpec } from '../providers/provider';
import { readRequest, type RequestReading } from './requestReading';
import type { CallChecks } from './types';

export { MAX_WORDS_CHARS, readRequest, type RequestReading, type ScanMeter } from './requestReading';

/** The checks inferred for a call, each with why it applies. */
export interface InferredChecks {
  /** Why the answer must hold JSON. */
  json?: string;
  /** Why the answer must make a tool call. */
  toolCall?: string;
  /** Why the blocks of the answer are syntax-checked. */
  code?: string;
  /** Why an answer with no code fails. */
  needsCode?: string;
  /** A change was asked for: the call is an edit, whether or not a tool call is still needed. */
  change: boolean;
  /** The language of the code the request is about, when one alone shows (an editor language id: `typescript`). */
  language?: string;
  /** The request as the rules read it. */
  request: RequestReading;
}

/** What {@link inferChecks} reads of a call. */
export interface InferenceInput {
  messages: readonly ChatMessage[];
  tools?: readonly ToolSpec[];
  classKey?: string;
  checks?: CallChecks;
  /** The caller's JSON response format. */
  json?: boolean;
}

/** The checks a call's request implies (see the module's rules). */
export function inferChecks(input: InferenceInput): InferredChecks {
  const request = readRequest(input.messages);
  const tools = input.tools ?? [];
  const explicitEdit = input.classKey !== undefined && input.classKey !== 'infer' && splitClassKey(input.classKey.trim()).cls === 'edit';
  const inferred: InferredChecks = { change: false, request };

  // 1. JSON: the caller's response format, else the words.
  if (input.json === true) inferred.json = 'the caller asked for a JSON response format';
  else if (asksForJson(request.words)) inferred.json = 'the request asks for the answer in JSON';

  // 2. A tool call: the front end's word, else a change asked of a tool that writes files.
  const changeAsked = asksForChange(request.words);
  const toolSaid = input.checks?.toolCall;
  if (tools.length > 0 && toolSaid === 'required') inferred.change = true;
  if (tools.length > 0 && toolSaid === undefined && changeAsked && tools.some(writesFiles)) inferred.change = true;
  if (inferred.change && !request.acted) {
    inferred.toolCall =
      toolSaid === 'required'
        ? 'the caller said a tool call is needed'
        : 'the request asks for a change and a tool that writes files is offered';
  }

  // 3. Code: an edit, or the words ask for code.
  const codeAsked = asksForCode(request.words, request.carriesCode);
  if (explicitEdit) inferred.code = 'the call is an edit';
  else if (codeAsked) inferred.code = 'the request asks for code to be written or changed';
  if (codeAsked) inferred.change = true;

  // 4. An edit needs code, unless its turn already made the change with tools. Only an edit the front
  // end asked for: read from words, a request for code may fairly be answered in prose ("Fix the bug
  // in parser.ts" with no file attached is honestly answered "I cannot see parser.ts"), and failing
  // that answer would fail every rung for the reader's guess.
  if (explicitEdit && !request.acted) inferred.needsCode = 'an edit must come with code';

  const language = requestLanguage(request);
  if (language !== undefined) inferred.language = language;
  return inferred;
}

/**
 * The class key a call is routed as: the one a front end gave, untouched; otherwise by what its
 * request asks.
 *
 * @remarks
 * A rating is per class, so a class must keep meaning one population of calls:
 * - **JSON → `plan`.** `plan` is the class of "one request whose answer can be checked at once:
 *   structured output, a plan, JSON", which a caller's schema already routed there; JSON asked for in
 *   words is the same kind of answer under a looser check. Left in `chat`, these would have been its
 *   only graded calls, and `chat`'s ratings would have measured JSON.
 * - **Code or a change → `edit`,** shaped by the language when the request shows one alone
 *   (`edit/typescript`): the key Edit Selection and `@rung /edit` route a change in that language as,
 *   with the same syntax check, so a model's standing on TypeScript edits is one figure whichever front
 *   end asked. Without a language it is `edit`, which every `edit/*` also learns into.
 * - **Anything else → `chat`:** a free-form answer, checked only when a front end brings a check.
 *
 * JSON wins over code ("Convert this YAML to JSON" is answered with JSON, not with code).
 */
export function routedClass(classKey: string | undefined, checks: CallChecks | undefined, inferred: InferredChecks): string {
  if (classKey !== undefined && classKey !== 'infer') return shaped(classKey);
  if (checks?.schema !== undefined || inferred.json !== undefined) return 'plan';
  if (inferred.change) return shaped('edit', inferred.language);
  return 'chat';
}

// ---------------------------------------------------------------------------------------------------
// Reading the request's words.

/** The request's sentences: split at sentence ends, line breaks and semicolons, each trimmed. */
function sentences(words: string): string[] {
  return words
    .split(/(?<=[.!?])\s+|\n+|;\s+/)
    .map((sentence) => sentence.trim())
    .filter(Boolean);
}

/**
 * What opens a request without being it: greetings, connectives and polite forms ("OK, now can you
 * please …", "I'd like you to …", "Let's …"), taken off so the verb that follows is read.
 */
const LEAD =
  /^(?:(?:ok(?:ay)?|so|now|then|also|and|but|great|thanks|thank you|cool|hi|hey|hello|alright|next|finally|first|lastly|right)\b[,!.:]?\s+)*(?:(?:please|pls|kindly)\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?|i(?:'d|\s+would)\s+like\s+you\s+to\s+|i\s+(?:want|need)\s+you\s+to\s+|go\s+ahead\s+and\s+|help\s+me\s+|let'?s\s+|we\s+need\s+to\s+)?(?:please\s+)?(?:(?:just|now|also|then)\s+)*/i;

/** A sentence that asks a question rather than for something: it opens with a question word (once {@link LEAD} is off). */
const QUESTION =
  /^(?:what|what's|whats|why|how|when|where|which|who|whom|whose|is|are|was|were|am|do|does|did|can|could|should|shall|would|will|has|have|had|may|might|must|isn't|aren't|doesn't|don't|didn't|won't|wouldn't|shouldn't|can't|couldn't)\b/i;

/**
 * The parts of a request that ask for something, each with its lead taken off: the sentences that are
 * not questions, and each of their clauses after a comma, a colon, a bracket or an "and" ("The tests
 * are failing, fix them"; "Classify these tickets and reply in JSON"; "List the cities (JSON array)").
 * A question is not cut: "What is the difference between add and remove?" asks to remove nothing.
 */
function commands(words: string): string[] {
  const asking = sentences(words).filter((sentence) => !QUESTION.test(sentence.replace(LEAD, '')));
  const clauses = asking.flatMap((sentence) => sentence.split(/,\s+|:\s+|\s*[()]\s*|\s+(?:and|&)\s+(?=\S)/).slice(1));
  return [...asking, ...clauses]
    .map((clause) => clause.trim().replace(LEAD, ''))
    .filter((clause) => clause !== '' && !QUESTION.test(clause));
}

// ---------------------------------------------------------------------------------------------------
// Rule 1: the request asks for the answer in JSON.

/** Qualifiers between an article and "JSON": "valid", "strict", "minified", "pretty-printed"… */
const QUALIFIERS = String.raw`(?:(?:valid|strict|strictly|pure|raw|plain|proper|correct|well-formed|parseable|parsable|minified|compact|pretty(?:-printed)?|single|one|only|sample|example|small|short|simple|flat|nested)\s+)*`;
/**
 * What, right after "JSON", makes it the topic or a tool rather than the answer's form: a JSON schema,
 * file, parser, library, body, request; `JSON.parse`; "JSON from the endpoint"; "as JSON in Python".
 */
const NOT_THE_ANSWER = String.raw`(?!\.\w|[-\s]+(?:schemas?|files?|parsers?|parsing|parse|seriali[sz]\w*|deseriali[sz]\w*|librar\w*|modules?|fixtures?|apis?|endpoints?|columns?|types?|support|encod\w*|decod\w*|paths?|bod(?:y|ies)|lines|requests?|calls?|rpc)\b|\s+from\b|\s+to\s+(?:the|a|an|my|our|this|that|disk|file|stdout|stderr)\b|\s+(?:when|whenever|if|unless|once|after|before|on\s+(?:error|success|failure))\b|\s+(?:in|with|using)\s+(?:python|javascript|typescript|node|java|go|golang|rust|c#|bash|php|ruby)\b|\s+(?:in|inside|within)\s+(?:the|this|that|my|our|each|every)\s+(?:endpoint|route|handler|function|method|api|server|controller|service|lambda|script|app)\b)`;
/** The words between a verb and "as JSON" that make it about code rather than the answer: "Write a script that prints … as JSON". */
const GAP = String.raw`(?:(?!\b(?:how|function|functions|method|methods|script|program|class|code|endpoint|route|handler|component|module|api|server|service|tests?|app|application|cli|lambda|query|snippet)\b)[^.!?\n])*?`;
/** Verbs that ask for an answer in some form ("Give me …", "List …", "Summarize …"). */
const ANSWER_VERBS =
  'answer|respond|reply|return|output|give|print|provide|produce|emit|send|format|write|list|express|present|show|put|dump|generate|render|extract|summari[sz]e|describe|classify|categori[sz]e|rate|score|report|structure|create|make|build|compile|collect|tabulate|enumerate|outline|restate|repeat|reformat|rewrite|fill|encode|pick|select|find|identify|rank|sort|group|parse|break';

/** Each way a request asks for a JSON answer, with an example; read on each sentence that asks for something (see {@link commands}). */
export const JSON_RULES: readonly { example: string; pattern: RegExp }[] = [
  // "Give me the capitals in JSON format", "Respond with valid JSON", "Summarize the log as JSON".
  {
    example: 'Give me the capitals as JSON',
    pattern: new RegExp(
      String.raw`^(?:${ANSWER_VERBS})\b${GAP}\b(?:in|as|with|using|into|in\s+the\s+form\s+of|following)\s+(?:(?:a|an|the|this|that|the\s+following)\s+)?${QUALIFIERS}json\b${NOT_THE_ANSWER}`,
      'i',
    ),
  },
  // "Return a JSON object with …", "Output valid JSON", "Give me JSON".
  {
    example: 'Return a JSON object with name and age',
    pattern: new RegExp(
      String.raw`^(?:${ANSWER_VERBS})\b(?:\s+(?:me|us|back|only|just|out))*\s+(?:(?:a|an|the|some|one|single|your)\s+)?${QUALIFIERS}json\b${NOT_THE_ANSWER}`,
      'i',
    ),
  },
  // "Convert this CSV to JSON", "Transform the YAML into JSON".
  {
    example: 'Convert this CSV to JSON',
    pattern: new RegExp(
      String.raw`^(?:convert|transform|translate|turn|rewrite|seriali[sz]e|export)\b${GAP}\b(?:to|into|as)\s+(?:(?:a|an)\s+)?${QUALIFIERS}json\b${NOT_THE_ANSWER}`,
      'i',
    ),
  },
  // "Your answer must be valid JSON".
  {
    example: 'Your answer must be valid JSON',
    pattern: new RegExp(
      String.raw`\byour\s+(?:(?:entire|whole|final)\s+)?(?:answer|response|reply|output)\s+(?:must|should|has\s+to|needs\s+to|shall|will|is\s+to)\s+(?:only\s+)?(?:be|contain|consist\s+of)\s+(?:only\s+)?(?:in\s+)?(?:(?:a|an)\s+)?${QUALIFIERS}json\b`,
      'i',
    ),
  },
  // "Format: JSON", "Output format: JSON".
  { example: 'Output format: JSON', pattern: /^(?:(?:output|response|answer|return|reply)\s+)?format\s*[:=-]\s*(?:valid\s+)?json\b/i },
  // "JSON only.", "Just the JSON, no prose.", "No explanation, only JSON".
  {
    example: 'No prose, just JSON',
    pattern: new RegExp(
      String.raw`^(?:(?:no|without)\s+(?:prose|explanations?|markdown|commentary|comments|text|other\s+text)\b[^.!?\n]*?[,;-]?\s*)?(?:(?:just|only)\s+(?:the\s+)?${QUALIFIERS}json|(?:(?:valid|raw|pure)\s+)?json\s+only|nothing\s+(?:but|except|other\s+than)\s+(?:the\s+)?${QUALIFIERS}json)\b(?=\s*(?:[,.!;-]|please|thanks|$))`,
      'i',
    ),
  },
  // "As JSON, please."; "list the env vars this service reads, json please" (the clause after the comma).
  {
    example: 'As JSON, please.',
    pattern: new RegExp(
      String.raw`^(?:(?:in|as)\s+)?(?:(?:a|the)\s+)?${QUALIFIERS}json(?:\s+(?:format|only|object|array|list))?(?:,?\s*please)?[.!]?$`,
      'i',
    ),
  },
  // "I'd like the list as JSON", "I need it in JSON format".
  {
    example: 'I need the results in JSON',
    pattern: new RegExp(
      String.raw`^i(?:'d|\s+would)?\s+(?:need|want|like|prefer|expect)\s+(?!to\b)${GAP}\b(?:in|as)\s+(?:(?:a|an)\s+)?${QUALIFIERS}json\b${NOT_THE_ANSWER}`,
      'i',
    ),
  },
  // "Use JSON for the answer".
  {
    example: 'Use JSON format for your answer',
    pattern: /^use\s+(?:(?:a|valid)\s+)?json(?:\s+format)?\s+for\s+(?:the|your)\s+(?:answer|response|reply|output)\b/i,
  },
];

/** Whether the words ask for the answer in JSON (rule 1). */
export function asksForJson(words: string): boolean {
  return commands(words).some((command) => JSON_RULES.some((rule) => rule.pattern.test(command)));
}

// ---------------------------------------------------------------------------------------------------
// Rules 2 and 3: the request asks for a change, or for code.

/** Verbs that change what exists, opening a request: "Fix …", "Rename …", "Make it async". */
const CHANGE_VERBS = String.raw`(?:get\s+rid\s+of|add|fix|change|update|modify|rename|refactor|rewrite|replace|remove|delete|implement|move|convert|insert|append|prepend|edit|extract|inline|split|merge|migrate|bump|upgrade|downgrade|simplify|clean\s+up|tidy(?:\s+up)?|reformat|wrap|annotate|uncomment|comment\s+out|revert|undo|optimi[sz]e|port|patch|swap|reorder|rework|restructure|reorgani[sz]e|document|handle|enable|disable|increase|decrease|deduplicate|dedupe|make(?=\s+(?:(?:it|this|that|them|these|those|the|sure)\b|[\w.]+\(\)))|use(?=\s+(?:a|an|the)\b|\s+\S+\s+instead\b)|set(?=\s+(?:the|up)\b))`;
/**
 * Uses of a change verb that change nothing in the workspace: sums ("Add 2 and 3"), unit conversions,
 * "make a list", "change of plans", "update me on …", and asks about the answer itself ("Add more
 * detail to your explanation", "Simplify your answer").
 */
const NOT_A_CHANGE =
  /^(?:add\s+(?:up\s+)?[\d(-]|convert\s+[\d$€£-]|make\s+(?:a|an|me)\b|change\s+of\b|handle\s+with\s+care\b|\w+\s+(?:me|us)\b)|\b(?:your|that|the\s+last)\s+(?:answer|explanation|response|reply|summary|description|wording|tone)\b|\bmore\s+(?:detail|details|examples?|context)\b/i;
/** Verbs that make something new: they ask for code only with a code word after them. */
const MAKE_VERBS = String.raw`(?:write|create|generate|build|scaffold|set\s+up|draft|code|bootstrap|initiali[sz]e|add|implement|make|give\s+me|show\s+me|provide)`;
/** Words naming code as the thing to write or change. */
const CODE_WORDS = String.raw`(?:functions?|methods?|class(?:es)?|components?|modules?|scripts?|programs?|snippets?|code|tests?|specs?|unit\s+tests?|test\s+cases?|endpoints?|routes?|handlers?|hooks?|types?|interfaces?|enums?|structs?|regexp?|regular\s+expressions?|quer(?:y|ies)|sql|algorithms?|implementations?|cli|parsers?|loops?|helpers?|util(?:ity|ities|s)?|callbacks?|constructors?|decorators?|macros?|lambdas?|middleware|reducers?|migrations?|dockerfile|makefile|one-liner|variables?|constants?|imports?|exports?|arguments?|parameters?|props|state|async|await|promises?|typings?)`;
/** Words naming a fault in code: with a verb that changes ("Fix the bug"), they name code; with one that makes ("Show me the error"), they do not. */
const FAULT_WORDS = String.raw`(?:bugs?|errors?|exceptions?|crash(?:es)?|warnings?|failing\s+tests?|memory\s+leaks?|race\s+conditions?)`;
/** Words naming a file or a document: with a tool that can write it, asking to make one is asking for a change. */
const FILE_WORDS = String.raw`(?:files?|folders?|director(?:y|ies)|readme|changelog|config(?:uration)?|workflows?|docs|documentation|license|gitignore)`;
/** Up to four words between a verb and what it makes, none of them a preposition that would make them the topic ("a poem about tests"). */
const FILLER = String.raw`(?:(?!(?:about|for|on|of|with|to|in|that|which|from)\b)[\w'.+#/-]+\s+){0,4}`;
/** Programming languages named after "in": "Write quicksort in Rust". */
const LANGUAGE_NAMES = String.raw`(?:typescript|javascript|ts|js|python|rust|golang|go|java|kotlin|c#|c\+\+|ruby|php|swift|scala|bash|shell|sql|haskell|elixir|lua|dart|perl|powershell)`;
/**
 * A file name with a code extension (`parser.ts`, `src/app.py`); framework names such as Node.js are
 * not files. Matched only from the start of a word: tried from every position, 200 KB of `a.a.a…` took
 * 293 s (BENCHMARKS.md).
 */
const CODE_FILE =
  /(?<![\w./-])[\w./-]*\w\.(ts|tsx|js|jsx|mjs|cjs|py|go|rs|java|kt|cs|cpp|cc|h|hpp|rb|php|swift|scala|sh|sql|json|ya?ml|toml|css|scss|html|vue|svelte|lua|dart)\b/gi;
const NOT_FILES = new Set([
  'node.js',
  'vue.js',
  'next.js',
  'nuxt.js',
  'react.js',
  'express.js',
  'three.js',
  'd3.js',
  'chart.js',
  'p5.js',
  'ember.js',
  'angular.js',
  'backbone.js',
  'socket.io',
  'deno.js',
  'bun.js',
]);

const CHANGE = new RegExp(String.raw`^${CHANGE_VERBS}\s+\S`, 'i');
const MAKE_CODE = new RegExp(String.raw`^(?:${MAKE_VERBS}\s+${FILLER}${CODE_WORDS}\b|implement\s+\S)`, 'i');
const MAKE_FILE = new RegExp(String.raw`^${MAKE_VERBS}\s+${FILLER}${FILE_WORDS}\b`, 'i');
const MAKE_IN_LANGUAGE = new RegExp(String.raw`^${MAKE_VERBS}\b[^.!?\n]*\bin\s+${LANGUAGE_NAMES}(?![\w+#])`, 'i');
const NAMES_CODE = new RegExp(String.raw`\b(?:${CODE_WORDS}|${FAULT_WORDS})\b`, 'i');

function namesCodeFile(sentence: string): boolean {
  return [...sentence.matchAll(CODE_FILE)].some((match) => !NOT_FILES.has(match[0].toLowerCase()));
}

/** A sentence that opens with a verb changing something that exists, and is not one of {@link NOT_A_CHANGE}. */
function opensWithChange(command: string): boolean {
  return CHANGE.test(command) && !NOT_A_CHANGE.test(command);
}

/**
 * Whether the words ask for a change (rule 2, with a tool that can make it): a sentence opens with a
 * verb that changes something ("Fix the failing test", "Can you rename it?"), or with one that makes
 * something followed by code or a file ("Write unit tests for parser.ts", "Create a README").
 */
export function asksForChange(words: string): boolean {
  return commands(words).some(
    (command) => opensWithChange(command) || MAKE_CODE.test(command) || MAKE_FILE.test(command) || MAKE_IN_LANGUAGE.test(command),
  );
}

/**
 * Whether the words ask for code to be written or changed (rule 3): a sentence opens with a verb that
 * makes something followed by code ("Write a function that …", "Implement quicksort in Rust"), or with
 * one that changes something about code — code the turn carries ("Add error handling to this:" over a
 * block), or code it names ("Fix the bug in parser.ts").
 */
export function asksForCode(words: string, carriesCode: boolean): boolean {
  return commands(words).some((command) => {
    if (MAKE_CODE.test(command) || MAKE_IN_LANGUAGE.test(command)) return true;
    return opensWithChange(command) && (carriesCode || NAMES_CODE.test(command) || namesCodeFile(command));
  });
}

/**
 * The editor's own tools that write the workspace's files, by the names a model sees (VS Code 1.139 and
 * its chat extension: Agent mode's editing tools and inline chat's).
 */
const EDITOR_WRITING_TOOLS: ReadonlySet<string> = new Set([
  'create_file',
  'create_directory',
  'replace_string_in_file',
  'multi_replace_string_in_file',
  'insert_edit_into_file',
  'apply_patch',
  'edit_notebook_file',
  'create_new_jupyter_notebook',
  'vscode_renameSymbol',
]);

/** An argument that names the file a call acts on. */
const FILE_ARGUMENT = /^(?:file_?path|file_?name|file|path|uri|target_?file)$/i;
/** An argument that carries what goes into a file: its content, new code, a patch, the edits. */
const CONTENT_ARGUMENT = /^(?:content|contents|code|new_?code|new_?string|new_?str|new_?text|file_?text|patch|diff|edits|replacements)$/i;

/**
 * Whether a tool writes files: one of the editor's own editing tools by name, or any tool whose schema
 * requires both a file and what goes into it (an MCP server's `write_file(path, content)`).
 *
 * @remarks
 * Judged by what a tool does, never by the words it says of itself: Ask mode's 19 read-only tools
 * describe themselves with "edit", "create" and "change" (`get_errors` is called "after editing a
 * file"), and read as editing tools they made every "Write a function …" in Ask mode need a tool call
 * that no tool offered could make, failing every rung's right answer. Only required arguments count:
 * the memory tool takes a path and `file_text` for its own notes, but a call needs neither.
 */
export function writesFiles(tool: ToolSpec): boolean {
  if (EDITOR_WRITING_TOOLS.has(tool.name)) return true;
  const required = Array.isArray(tool.parameters.required) ? tool.parameters.required.filter((name) => typeof name === 'string') : [];
  return required.some((name) => FILE_ARGUMENT.test(name)) && required.some((name) => CONTENT_ARGUMENT.test(name));
}

// ---------------------------------------------------------------------------------------------------
// The language of the code a request is about, for the class's shape.

/** Fence tags, language names and file extensions, as the editor's language ids (the shapes Edit Selection uses). */
const LANGUAGE_IDS: Record<string, string> = {
  ts: 'typescript',
  typescript: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'typescriptreact',
  js: 'javascript',
  javascript: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascriptreact',
  py: 'python',
  python: 'python',
  go: 'go',
  golang: 'go',
  rs: 'rust',
  rust: 'rust',
  java: 'java',
  kt: 'kotlin',
  kotlin: 'kotlin',
  cs: 'csharp',
  'c#': 'csharp',
  csharp: 'csharp',
  cpp: 'cpp',
  'c++': 'cpp',
  cc: 'cpp',
  rb: 'ruby',
  ruby: 'ruby',
  php: 'php',
  swift: 'swift',
  scala: 'scala',
  sh: 'shellscript',
  bash: 'shellscript',
  shell: 'shellscript',
  sql: 'sql',
  json: 'json',
  lua: 'lua',
  dart: 'dart',
};

/**
 * The one language the request's code is in: its fence tags, the languages its words name ("in Rust",
 * "to TypeScript") and the code files they name; undefined when there is none or more than one.
 */
function requestLanguage(request: RequestReading): string | undefined {
  const found = new Set<string>();
  for (const tag of request.fenceTags) add(found, tag);
  for (const match of request.words.matchAll(new RegExp(String.raw`\bin\s+(${LANGUAGE_NAMES})(?![\w+#])`, 'gi'))) add(found, match[1]);
  // "Port this to Rust" names the answer's language too ("to go" is no language, so Go is left out).
  for (const match of request.words.matchAll(new RegExp(String.raw`\b(?:to|into)\s+(?!go\b)(${LANGUAGE_NAMES})(?![\w+#])`, 'gi')))
    add(found, match[1]);
  for (const match of request.words.matchAll(CODE_FILE)) if (!NOT_FILES.has(match[0].toLowerCase())) add(found, match[1]);
  return found.size === 1 ? [...found][0] : undefined;
}

function add(found: Set<string>, tag: string | undefined): void {
  const id = tag === undefined ? undefined : LANGUAGE_IDS[tag.toLowerCase()];
  if (id !== undefined) found.add(id);
}
