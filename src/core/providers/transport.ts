/**
 * The HTTP plumbing every streaming adapter shares: one request, its timeouts and its cancellation, its
 * body read as lines, and every way it can go wrong turned into a {@link ProviderFailure} of the right kind.
 *
 * @remarks
 * The cascade's whole contract with a provider is the failure kind: `unavailable` and `provider-error`
 * skip to the next rung and grade nobody, `stopped` ends the call. Getting that wrong in one adapter
 * would grade a model for a dropped socket, so the classification lives here once. `fetch` is injected
 * (ollama-js does the same) so a test can point an adapter at a local server or a recorded stream.
 * Timers here are real timers: a timeout is about the wall clock of a socket, not about the ledger's
 * clock, which only ever stamps and measures.
 */
import { createParser } from 'eventsource-parser';
import { redactor } from '../redactor';
import { Deadline } from './deadline';
import { ProviderError, ProviderFailure, ProviderStopped, ProviderUnavailable } from './provider';

/** The slice of the WHATWG `fetch` the adapters use; Node's global `fetch` is one. */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** How long a stream may stay silent between two chunks once it has started, ms. */
export const STREAM_IDLE_TIMEOUT_MS = 60_000;
/**
 * How long a stream may send nothing but keep-alives (blank lines, SSE comments) before it counts as
 * stuck, ms: from the request, and again from each line that carries something.
 *
 * @remarks
 * Every byte re-arms the idle timeout, so a server that only sends `: keep-alive` every few seconds
 * would hold the call open forever. Keep-alives are not counted as progress here, but the bound is
 * long, because OpenRouter sends `: OPENROUTER PROCESSING` for as long as a hidden-reasoning model
 * thinks. Ten minutes is the default request timeout of the OpenAI and Anthropic SDKs
 * (`DEFAULT_TIMEOUT`), the longest those providers' own clients wait for one answer.
 */
export const STREAM_NO_CONTENT_TIMEOUT_MS = 600_000;
/**
 * The most a whole response body may hold, bytes (32 MiB).
 *
 * @remarks
 * A chat answer is kilobytes; a runaway generation or a misbehaving proxy can stream without end, and
 * the adapter keeps the whole answer in memory, so past this it is a provider error, not a longer answer.
 */
export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
/**
 * The most a model list (`/models`, Ollama's `/api/tags`, a local server's `/v1/models`,
 * `/api/v0/models`) or llama.cpp's `/props` may hold, bytes (16 MiB).
 *
 * @remarks
 * These are read whole, to be parsed as one JSON document. OpenRouter's catalogue, the longest list Rung
 * reads, holds a few hundred models at a few KB each, about a megabyte; a server that answered the list
 * request with 900 MB held 1.9 GB of the editor's memory.
 */
export const MAX_LIST_BYTES = 16 * 1024 * 1024;
/** How much of an error body, or of a web page answered instead of the API, is read, bytes: its message or title is at the start. */
const ERROR_BODY_BYTES = 16 * 1024;
/** The longest single line (an NDJSON object or an SSE `data:` field), characters (4 Mi). */
export const MAX_LINE_CHARS = 4 * 1024 * 1024;
/** How much of an error body is read to explain a failure, characters. */
const ERROR_BODY_CHARS = 4_096;
/** How much of the server's own error message goes into ours, characters. */
const ERROR_MESSAGE_CHARS = 300;
/**
 * How much of a body that is not the stream asked for is quoted back, characters: enough to tell a
 * `chat.completion` object, an HTML page or a proxy's notice apart at a glance, short of an answer's text.
 */
export const BODY_HEAD_CHARS = 120;

/** Socket-level error codes that mean "nobody is listening there", as opposed to "it broke". */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

export interface TransportOptions {
  /** The provider's name, for messages and failure details. */
  provider: string;
  fetch: FetchLike;
  /** The user's stop. */
  signal?: AbortSignal;
  /** Until the first body byte, ms. */
  firstByteTimeoutMs: number;
  idleTimeoutMs?: number;
  noContentTimeoutMs?: number;
  maxResponseBytes?: number;
  maxLineChars?: number;
  /** Secrets to scrub from any text that came off the wire before it goes into a message. */
  secrets?: readonly string[];
  /** Told the headers of a 2xx response before its body is read, so a body of the wrong kind can be named by them. */
  onHeaders?: (headers: Headers) => void;
  /** Turns a non-2xx response into a failure; {@link failureForStatus} when absent. */
  failureForStatus?: (status: number, serverMessage: string, headers: Headers) => ProviderFailure;
  /** For Retry-After dates. */
  now: () => number;
}

/**
 * Sends one request and yields its body line by line (without the line break), enforcing the first-byte
 * and idle timeouts and the size limits, and throwing a {@link ProviderFailure} for every fault.
 *
 * @remarks
 * A line ends at LF, CRLF or a lone CR, as the server-sent events format defines it; NDJSON cannot hold
 * a raw CR inside a line, so the same split serves both. Breaking out of the loop cancels the body,
 * which releases the socket: an abandoned stream must not keep a local model generating for nobody.
 */
export async function* requestLines(url: string, init: RequestInit, options: TransportOptions): AsyncGenerator<string> {
  const { provider, signal } = options;
  if (signal?.aborted) throw new ProviderStopped(undefined, { provider });
  // Two timers on one signal: the byte deadline (first byte, then idle) and the content deadline.
  const stall = new Deadline(signal);
  const deadline = new Deadline(stall.signal);
  const idleMs = options.idleTimeoutMs ?? STREAM_IDLE_TIMEOUT_MS;
  const noContentMs = options.noContentTimeoutMs ?? STREAM_NO_CONTENT_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  const maxLine = options.maxLineChars ?? MAX_LINE_CHARS;
  const scrub = redactor(options.secrets ?? []);
  const explain = (error: unknown, phase: 'connect' | 'read'): ProviderFailure => {
    if (signal?.aborted) return new ProviderStopped(undefined, { provider });
    const timedOut = deadline.timedOut ?? stall.timedOut;
    if (timedOut) return new ProviderError(`${provider}: timed out: ${timedOut}`, { provider });
    if (error instanceof ProviderFailure) return error;
    const code = errorCode(error);
    if (phase === 'connect' && code && UNREACHABLE_CODES.has(code)) {
      return new ProviderUnavailable(`${provider}: no server at ${origin(url)} (${code})`, { provider });
    }
    // llhttp's codes: what answered is not an HTTP server (SSH, a database, a gRPC port), a wrong baseUrl.
    if (phase === 'connect' && code?.startsWith('HPE_')) {
      return new ProviderError(`${provider}: ${origin(url)} did not answer in HTTP (${code}); check the provider's baseUrl`, { provider });
    }
    if (phase === 'connect') return new ProviderError(`${provider}: request failed${code ? ` (${code})` : ''}`, { provider });
    return new ProviderError(`${provider}: stream cut mid-way${code ? ` (${code})` : ''}`, { provider });
  };

  deadline.arm(options.firstByteTimeoutMs, `no first byte within ${options.firstByteTimeoutMs} ms`);
  const noContent = `the stream sent nothing but keep-alives (blank lines, comments) for ${noContentMs} ms`;
  stall.arm(noContentMs, noContent);
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let finished = false;
  try {
    let response: Response;
    try {
      // Not followed: a 307 or 308 resends the prompt to wherever it points, a host the user never
      // configured, and without the key (fetch strips Authorization across origins), so an http://
      // baseUrl redirected to https:// read as "the API key was rejected"; a 301 or 302 turns the POST
      // into a bodiless GET, which fails as whatever that address says to a GET.
      response = await options.fetch(url, { ...init, redirect: 'manual', signal: deadline.signal });
    } catch (error) {
      throw explain(error, 'connect');
    }
    if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
      response.body?.cancel().catch(() => undefined);
      const target = redirectTarget(url, response.headers.get('location'));
      const status = response.status || undefined;
      const to = target ? ` to ${scrub(target).slice(0, ERROR_MESSAGE_CHARS)}` : '';
      throw new ProviderError(
        `${provider}: ${origin(url)} redirected the request${status ? ` (${status})` : ''}${to}; Rung does not follow redirects, so set the provider's baseUrl to the address it points to`,
        { provider, ...(status ? { status } : {}) },
      );
    }
    if (!response.ok) {
      let body = '';
      try {
        body = (await readBodyUpTo(response, ERROR_BODY_BYTES)).text.slice(0, ERROR_BODY_CHARS);
      } catch (error) {
        throw explain(error, 'read');
      }
      const message = scrub(serverMessage(body)).slice(0, ERROR_MESSAGE_CHARS);
      const classify =
        options.failureForStatus ??
        ((status, text, headers) => failureForStatus(provider, status, text, parseRetryAfterMs(headers, options.now())));
      throw classify(response.status, message, response.headers);
    }
    if (isWebPage(response.headers)) {
      // A login page, a proxy's notice or the server's own web UI: a base URL that is not the API's.
      // Read as a stream it would fail as "malformed line 1", which sends the user after the model.
      let title: string | undefined;
      try {
        title = pageTitle((await readBodyUpTo(response, ERROR_BODY_BYTES)).text.slice(0, ERROR_BODY_CHARS));
      } catch (error) {
        throw explain(error, 'read');
      }
      const named = title ? ` ("${scrub(title).slice(0, ERROR_MESSAGE_CHARS)}")` : '';
      throw new ProviderError(
        `${provider}: ${origin(url)} answered with a web page${named}, not the model API; check the provider's baseUrl`,
        { provider },
      );
    }
    options.onHeaders?.(response.headers);
    if (!response.body) throw new ProviderError(`${provider}: the response had no body`, { provider });
    reader = response.body.getReader();
    const decoder = new TextDecoder();
    // The start of a line still open, in the pieces it came in. It holds no line break, so only new text
    // is searched, and the pieces are joined once, when the line ends: appending to one string and
    // searching it again on every read costs time quadratic in the line (a 3 MiB line sent 64 bytes at a
    // time took 38 s of CPU).
    let pending: string[] = [];
    let pendingChars = 0;
    let bytes = 0;
    // A CR that ended the last chunk may be the first half of a CRLF: its LF must not end a second line.
    let afterCr = false;
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        throw explain(error, 'read');
      }
      if (chunk.done) break;
      deadline.arm(idleMs, `the stream was silent for ${idleMs} ms`);
      bytes += chunk.value.byteLength;
      if (bytes > maxBytes) {
        throw new ProviderError(
          `${provider}: the answer went past ${sizeText(maxBytes)}, far more than any model writes (a fixed limit); Rung stopped reading it`,
          { provider },
        );
      }
      let text = decoder.decode(chunk.value, { stream: true });
      if (afterCr && text.length > 0) {
        if (text.startsWith('\n')) text = text.slice(1);
        afterCr = false;
      }
      // The next CR and LF are looked up once each and reused, so a chunk of many lines is read in one
      // pass (a fresh search for a CR that never comes would rescan the rest of the chunk per line).
      let start = 0;
      let cr = text.indexOf('\r');
      let lf = text.indexOf('\n');
      for (;;) {
        if (cr >= 0 && cr < start) cr = text.indexOf('\r', start);
        if (lf >= 0 && lf < start) lf = text.indexOf('\n', start);
        const end = cr < 0 ? lf : lf < 0 ? cr : Math.min(cr, lf);
        if (end < 0) break;
        let line = text.slice(start, end);
        if (pending.length) {
          line = pending.join('') + line;
          pending = [];
          pendingChars = 0;
        }
        start = end === cr && lf === end + 1 ? end + 2 : end + 1;
        if (end === cr && end === text.length - 1) afterCr = true;
        if (line.trim() !== '' && !line.startsWith(':')) stall.arm(noContentMs, noContent);
        // Lines already read must not outrun a stop: the user sees nothing after pressing it.
        if (signal?.aborted) throw new ProviderStopped(undefined, { provider });
        yield line;
      }
      if (start < text.length) {
        pending.push(text.slice(start));
        pendingChars += text.length - start;
      }
      if (pendingChars > maxLine) {
        throw new ProviderError(`${provider}: a line exceeded ${maxLine} characters`, { provider });
      }
    }
    const rest = pending.join('') + decoder.decode();
    if (rest.trim()) yield rest;
    finished = true;
  } finally {
    deadline.clear();
    stall.clear();
    if (reader && !finished) {
      // Cancelling tells the server to stop generating; a failure to cancel changes nothing for us.
      reader.cancel().catch(() => undefined);
    }
  }
}

/**
 * One thing a server-sent event stream said: a dispatched event, or a field the format does not define.
 *
 * @remarks
 * `line` is where the event began (or where the field stood), for messages that name a bad line. An
 * unknown field is passed up rather than dropped, because llama.cpp servers before ggml-org/llama.cpp
 * PR #16486 report a failed request as an `error: {…}` line, which the format itself says to ignore.
 */
export type ServerSentItem =
  { type: 'event'; event: string | undefined; data: string; line: number } | { type: 'field'; field: string; value: string; line: number };

/**
 * Sends one request and yields its body read as server-sent events, with every guarantee of
 * {@link requestLines}.
 *
 * @remarks
 * The fields are read by `eventsource-parser` (the parser vercel/ai's providers use): event names,
 * comments, `id:` and `retry:`, data split over several lines, a byte-order mark. Lines are split here
 * first and fed one at a time, so each event knows the line it began on. An event whose data is empty
 * (`data:` alone, a keep-alive some proxies send) carries nothing and is not passed on. A last event
 * the stream ended before closing with a blank line is still dispatched: the bytes arrived whole.
 *
 * A body that ends without one event, having held lines that are not the format's (or labelled as
 * something else), was not an event stream at all: a server that ignored `stream: true` and sent a whole
 * `chat.completion` object, or a proxy's plain-text notice. Every such line reads as an unknown field, so
 * the adapter would call it a stream cut mid-way and send the user after the network; instead it fails
 * here, naming the content-type and quoting how the body begins.
 */
export async function* requestEvents(url: string, init: RequestInit, options: TransportOptions): AsyncGenerator<ServerSentItem> {
  const pending: ServerSentItem[] = [];
  let lineNumber = 0;
  let eventStart: number | undefined;
  let dispatched = false;
  let foreignLines = false;
  let head = '';
  let contentType: string | null = null;
  const parser = createParser({
    onEvent: (message) => {
      if (message.data.trim() === '') return;
      dispatched = true;
      pending.push({ type: 'event', event: message.event, data: message.data, line: eventStart ?? lineNumber });
    },
    onError: (error) => {
      if (error.type !== 'unknown-field' || error.field === undefined) return;
      foreignLines = true;
      pending.push({ type: 'field', field: error.field, value: error.value ?? '', line: lineNumber });
    },
  });
  const onHeaders = (headers: Headers): void => {
    contentType = headers.get('content-type');
    options.onHeaders?.(headers);
  };
  for await (const line of requestLines(url, init, { ...options, onHeaders })) {
    lineNumber++;
    if (line !== '' && eventStart === undefined && !line.startsWith(':')) eventStart = lineNumber;
    if (!dispatched && head.length <= BODY_HEAD_CHARS && line.trim() !== '' && !line.startsWith(':'))
      head += `${head ? ' ' : ''}${line.trim()}`;
    parser.feed(`${line}\n`);
    if (line === '') eventStart = undefined;
    while (pending.length) yield pending.shift() as ServerSentItem;
  }
  parser.feed('\n');
  while (pending.length) yield pending.shift() as ServerSentItem;
  if (!dispatched && (foreignLines || !isEventStream(contentType))) {
    const { provider } = options;
    throw new ProviderError(
      `${provider}: the response was not an event stream (${bodySketch(contentType, head, redactor(options.secrets ?? []))})`,
      { provider },
    );
  }
}

/**
 * A body the adapter could not read, in a few words: its content-type and how it begins, on one line
 * (`content-type application/json; it begins {"id": "chatcmpl-…", …`), secrets scrubbed.
 */
export function bodySketch(contentType: string | null, head: string, scrub: (text: string) => string = (text) => text): string {
  const type = contentType ? `content-type ${contentType.trim()}` : 'no content-type';
  const text = scrub(head.replace(/\s+/g, ' ').trim());
  if (!text) return `${type}; the body was empty`;
  return `${type}; it begins ${text.length > BODY_HEAD_CHARS ? `${text.slice(0, BODY_HEAD_CHARS)}…` : text}`;
}

/** Whether a content-type says server-sent events. */
function isEventStream(contentType: string | null): boolean {
  return /^\s*text\/event-stream\b/i.test(contentType ?? '');
}

/**
 * How a non-2xx status reads to the cascade.
 *
 * @remarks
 * 401 and 403 say nothing of the server's body: an OpenAI 401 echoes part of the key it refused, and
 * a key must never reach a log, the ledger or the decision log.
 */
export function failureForStatus(
  provider: string,
  status: number,
  serverMessage: string,
  retryAfterMs: number | undefined,
): ProviderFailure {
  const said = serverMessage ? `: ${serverMessage}` : '';
  if (status === 401 || status === 403) {
    return new ProviderUnavailable(`${provider}: the API key was rejected (${status})`, { provider, status });
  }
  if (status === 404) return new ProviderUnavailable(`${provider}: model not found (404)${said}`, { provider, status });
  if (status === 429) {
    const wait = retryAfterMs !== undefined ? `, retry after ${retryAfterMs} ms` : '';
    return new ProviderError(`${provider}: rate limited (429)${wait}`, { provider, status, retryAfterMs });
  }
  if (status === 408) return new ProviderError(`${provider}: timed out (408)${said}`, { provider, status });
  if (status >= 500) return new ProviderError(`${provider}: server error (${status})${said}`, { provider, status, retryAfterMs });
  return new ProviderError(`${provider}: request rejected (${status})${said}`, { provider, status });
}

/**
 * Milliseconds to wait, from `retry-after-ms` (OpenAI) or `retry-after` (seconds or an HTTP date);
 * undefined when neither is there or readable.
 */
export function parseRetryAfterMs(headers: Headers, now: number): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Math.round(Number(ms));
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Whether a response says it is HTML, which neither NDJSON nor an event stream ever is. */
function isWebPage(headers: Headers): boolean {
  return /^\s*(text\/html|application\/xhtml\+xml)\b/i.test(headers.get('content-type') ?? '');
}

/** The text of an HTML page's `<title>`, on one line, if it has one. */
function pageTitle(html: string): string | undefined {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1]?.replace(/\s+/g, ' ').trim();
  return title || undefined;
}

/** A body that was longer than its reader's limit; the message says which limit. */
export class BodyTooLarge extends Error {
  constructor(readonly limitBytes: number) {
    super(`more than ${sizeText(limitBytes)}`);
    this.name = 'BodyTooLarge';
  }
}

/**
 * A response's body as text, read to its end or to `maxBytes`, whichever comes first, and whether that
 * was all of it; the rest is cancelled unread.
 *
 * @remarks
 * `response.text()` and `response.json()` hold the whole body in memory before anything can look at it.
 */
export async function readBodyUpTo(response: Response, maxBytes: number): Promise<{ text: string; whole: boolean }> {
  if (!response.body) return { text: '', whole: true };
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let bytes = 0;
  for (;;) {
    const chunk = await reader.read();
    if (chunk.done) return { text: parts.join('') + decoder.decode(), whole: true };
    if (bytes + chunk.value.byteLength > maxBytes) {
      parts.push(decoder.decode(chunk.value.subarray(0, maxBytes - bytes), { stream: true }));
      reader.cancel().catch(() => undefined);
      return { text: parts.join('') + decoder.decode(), whole: false };
    }
    bytes += chunk.value.byteLength;
    parts.push(decoder.decode(chunk.value, { stream: true }));
  }
}

/**
 * A response's whole body as text, or a {@link BodyTooLarge} once it passes `maxBytes` — at once when its
 * `content-length` says it will, before a byte is read.
 */
export async function readBodyCapped(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.body?.cancel().catch(() => undefined);
    throw new BodyTooLarge(maxBytes);
  }
  const { text, whole } = await readBodyUpTo(response, maxBytes);
  if (!whole) throw new BodyTooLarge(maxBytes);
  return text;
}

/** Bytes for a message: `16 MiB`, `4 KiB`, `900 bytes`. */
export function sizeText(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** The server's own words from an error body: `{"error":"…"}`, `{"error":{"message":"…"}}` or the text. */
export function serverMessage(body: string): string {
  const text = body.trim();
  try {
    const json: unknown = JSON.parse(text);
    if (isRecord(json)) {
      const error = json.error;
      if (typeof error === 'string') return error;
      if (isRecord(error) && typeof error.message === 'string') return error.message;
      if (typeof json.message === 'string') return json.message;
    }
  } catch {
    // Not JSON: the text itself, on one line.
  }
  return text.replace(/\s+/g, ' ');
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Joins a base URL and a path without doubling or dropping the slash. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** Where a redirect points, resolved against the request's URL; undefined when it names nowhere readable. */
function redirectTarget(url: string, location: string | null): string | undefined {
  if (!location) return undefined;
  try {
    return new URL(location, url).href;
  } catch {
    return undefined;
  }
}

function origin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the configured address';
  }
}

/** The first `code` along an error's cause chain (`ECONNREFUSED`, `UND_ERR_SOCKET`). */
export function errorCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; isObject(current) && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}
