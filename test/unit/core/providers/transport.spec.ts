import { afterEach, describe, expect, it } from 'vitest';
import { redactor } from '../../../../src/core/redactor';
import {
  failureForStatus,
  parseRetryAfterMs,
  requestEvents,
  requestLines,
  serverMessage,
  type ServerSentItem,
} from '../../../../src/core/providers/transport';
import { serveBytes, SPLITS, WireServer } from '../../support/wireServer';
import { scaled } from '../../../timeScale';

let server: WireServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The options of a request to a local server, with a generous first-byte wait. */
const transport = {
  provider: 'local',
  fetch: (input: string, init?: RequestInit) => fetch(input, init),
  firstByteTimeoutMs: 5_000,
  now: () => 0,
};

describe('parseRetryAfterMs', () => {
  const now = Date.UTC(2025, 5, 12, 8, 0, 0);

  it('reads Retry-After in seconds, as an HTTP date, and OpenAI retry-after-ms', () => {
    expect(parseRetryAfterMs(new Headers({ 'retry-after': '7' }), now)).toBe(7_000);
    expect(parseRetryAfterMs(new Headers({ 'retry-after': '1.5' }), now)).toBe(1_500);
    expect(parseRetryAfterMs(new Headers({ 'retry-after': 'Thu, 12 Jun 2025 08:00:30 GMT' }), now)).toBe(30_000);
    expect(parseRetryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
  });

  it('reads a date in the past as no wait, and nonsense as nothing', () => {
    expect(parseRetryAfterMs(new Headers({ 'retry-after': 'Thu, 12 Jun 2025 07:59:00 GMT' }), now)).toBe(0);
    expect(parseRetryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(parseRetryAfterMs(new Headers(), now)).toBeUndefined();
  });
});

describe('failureForStatus', () => {
  it('sorts statuses into the kinds the cascade acts on', () => {
    expect([401, 403, 404].map((status) => failureForStatus('p', status, '', undefined).kind)).toEqual([
      'unavailable',
      'unavailable',
      'unavailable',
    ]);
    expect([408, 429, 500, 502, 503, 400].map((status) => failureForStatus('p', status, '', undefined).kind)).toEqual(
      Array(6).fill('provider-error'),
    );
  });

  it('leaves the server body out of a rejected-key message', () => {
    expect(failureForStatus('openai', 401, 'Incorrect API key provided: sk-abc', undefined).message).toBe(
      'openai: the API key was rejected (401)',
    );
  });
});

describe('redactor', () => {
  it('replaces every occurrence of every secret', () => {
    expect(redactor(['sk-secret-1', 'tok-2'])('a sk-secret-1 b tok-2 c sk-secret-1')).toBe('a [redacted] b [redacted] c [redacted]');
  });
});

describe('serverMessage', () => {
  it('reads the error shapes Ollama and OpenAI send, and plain text', () => {
    expect(serverMessage('{"error":"model \\"x\\" not found"}')).toBe('model "x" not found');
    expect(serverMessage('{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}')).toBe('Rate limit reached');
    expect(serverMessage('<html>\n  Bad Gateway\n</html>')).toBe('<html> Bad Gateway </html>');
  });
});

describe('requestLines', () => {
  it.each(SPLITS)('ends a line at LF, CRLF or a lone CR however the bytes are cut ($name)', async ({ split }) => {
    server = new WireServer().on('GET', '/lines', serveBytes(Buffer.from('one\ntwo\r\nthree\rfour\r\rsix\r\n\nlast'), split, 'text/plain'));
    const lines: string[] = [];
    for await (const line of requestLines(`${await server.start()}/lines`, {}, transport)) lines.push(line);
    expect(lines).toEqual(['one', 'two', 'three', 'four', '', 'six', '', 'last']);
  });
});

describe('requestLines on a long line in small pieces', () => {
  /** A fetch that answers with `pieces` as the body's chunks, one read each, without a socket. */
  const piecesFetch = (pieces: Uint8Array[]) => async () => {
    let next = 0;
    const body = new ReadableStream<Uint8Array>({
      pull: (controller) => {
        const piece = pieces[next++];
        if (piece) controller.enqueue(piece);
        else controller.close();
      },
    });
    return new Response(body, { headers: { 'content-type': 'application/x-ndjson' } });
  };

  it(
    'reads it in time linear in its length, so a server dripping one long line cannot pin the CPU',
    async () => {
      // 3 MiB in 64-byte pieces (49,152 reads): searching the whole pending line again on every read took
      // 38 s here, all of it on the event loop; reading each piece once takes a fraction of a second.
      const piece = new TextEncoder().encode('x'.repeat(64));
      const pieces = [...Array.from({ length: 49_152 }, () => piece), new TextEncoder().encode('\nlast')];
      const lines: string[] = [];
      for await (const line of requestLines('http://127.0.0.1:9/long', {}, { ...transport, fetch: piecesFetch(pieces) })) lines.push(line);
      expect(lines.map((line) => line.length)).toEqual([3 * 1024 * 1024, 4]);
    },
    scaled(10_000),
  );

  it('still stops a line longer than the limit', async () => {
    const pieces = Array.from({ length: 64 }, () => new TextEncoder().encode('x'.repeat(64)));
    const read = async () => {
      for await (const line of requestLines(
        'http://127.0.0.1:9/long',
        {},
        { ...transport, fetch: piecesFetch(pieces), maxLineChars: 1_000 },
      ))
        void line;
    };
    await expect(read()).rejects.toThrow('local: a line exceeded 1000 characters');
  });
});

describe('requestEvents', () => {
  const stream = [
    '\uFEFF: a comment before anything',
    'retry: 1000',
    'data: {"first":',
    'data: true}',
    '',
    'event: ping',
    'data: {}',
    '',
    'data:',
    '',
    'error: {"message":"context size exceeded"}',
    '',
    'id: 7',
    'data: last, with no blank line after it',
  ].join('\n');

  it.each(SPLITS)('reads events, their names and unknown fields the way the format defines them ($name)', async ({ split }) => {
    server = new WireServer().on('GET', '/events', serveBytes(Buffer.from(stream), split));
    const items: ServerSentItem[] = [];
    for await (const item of requestEvents(`${await server.start()}/events`, {}, transport)) items.push(item);
    expect(items).toEqual([
      { type: 'event', event: undefined, data: '{"first":\ntrue}', line: 2 },
      { type: 'event', event: 'ping', data: '{}', line: 6 },
      { type: 'field', field: 'error', value: '{"message":"context size exceeded"}', line: 11 },
      { type: 'event', event: undefined, data: 'last, with no blank line after it', line: 13 },
    ]);
  });
});

describe('requestEvents on a body that is not an event stream', () => {
  const read = async (body: string, contentType: string) => {
    server = new WireServer().on('GET', '/events', serveBytes(Buffer.from(body), { every: 7 }, contentType));
    const items: ServerSentItem[] = [];
    try {
      for await (const item of requestEvents(`${await server.start()}/events`, {}, { ...transport, secrets: ['sk-secret-1'] }))
        items.push(item);
    } catch (error) {
      return { items, error: (error as Error).message };
    }
    return { items, error: undefined };
  };

  it('fails one that held no event, naming its content-type and quoting its start, after passing its lines on as fields', async () => {
    const { items, error } = await read('{"object": "chat.completion",\n "key": "sk-secret-1"}\n', 'application/json');
    expect(items.map((item) => item.type)).toEqual(['field', 'field']);
    expect(error).toBe(
      'local: the response was not an event stream (content-type application/json; it begins {"object": "chat.completion", "key": "[redacted]"})',
    );
  });

  it('names an empty body that was not labelled an event stream', async () => {
    expect((await read('', 'application/json')).error).toBe(
      'local: the response was not an event stream (content-type application/json; the body was empty)',
    );
  });

  it('leaves an event stream of comments alone, and one mislabelled that held events', async () => {
    expect(await read(': keep-alive\n\n', 'text/event-stream')).toEqual({ items: [], error: undefined });
    expect(await read('data: {}\n\n', 'application/json')).toEqual({
      items: [{ type: 'event', event: undefined, data: '{}', line: 1 }],
      error: undefined,
    });
  });
});
