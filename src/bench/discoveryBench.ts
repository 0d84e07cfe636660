/**
 * How long building a panel from a local Ollama takes when it lists many models and answers `/api/show`
 * slowly: what every session without a configured panel does as it opens, and Create Panel File.
 *
 * @remarks
 * A stand-in Ollama on 127.0.0.1 lists `--models` models and answers each `/api/show` after `--delay-ms`
 * (2,500 by default, past the 2 s a question is waited for, as a server busy loading models is). Every
 * listed model was asked about, four at once, so the wait grew with the list; BENCHMARKS.md has the
 * figures before and after the number asked was bounded.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { systemClock } from '../core/clock';
import { ollamaPanel } from '../core/ollamaPanel';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { models: { type: 'string', default: '200' }, 'delay-ms': { type: 'string', default: '2500' } },
  });
  const models = Number(values.models);
  const delayMs = Number(values['delay-ms']);
  let asked = 0;
  const server: Server = createServer((request, response) => {
    if (request.method === 'GET' && request.url === '/api/tags') {
      const listed = Array.from({ length: models }, (_, index) => ({ name: `m${index}:${(index % 70) + 1}b`, model: `m${index}:${(index % 70) + 1}b` }));
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ models: listed }));
      return;
    }
    asked++;
    request.resume();
    const timer = setTimeout(() => response.writeHead(200, { 'content-type': 'application/json' }).end('{"capabilities":["completion","tools"]}'), delayMs);
    response.once('close', () => clearTimeout(timer));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const started = performance.now();
  const found = await ollamaPanel({ baseUrl, clock: systemClock });
  const seconds = (performance.now() - started) / 1000;
  server.closeAllConnections();
  await new Promise<void>((done) => server.close(() => done()));
  console.log(`| models listed | /api/show asked | each answered after (ms) | panel built in (s) | panel models |`);
  console.log(`| ---: | ---: | ---: | ---: | ---: |`);
  console.log(`| ${models} | ${asked} | ${delayMs} | ${seconds.toFixed(1)} | ${found.found ? found.panel.models.length : 0} |`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
