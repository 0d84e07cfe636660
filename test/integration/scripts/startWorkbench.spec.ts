import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installTestHost } from '../../../scripts/test-host/codeServer';
import { startWorkbench, type Workbench } from '../../../scripts/test-host/workbench';

/**
 * The workbench `npm start` serves, started for real from the test host (code-server 4.139): a request
 * without its token is sent to the sign-in page, whatever it asks for, and the printed address signs a
 * browser in. It served a root workbench and its terminal to anyone who could reach 127.0.0.1.
 */

let scratch: string;
let workbench: Workbench;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'rung-start-'));
  const folder = join(scratch, 'cloned-repo');
  mkdirSync(folder);
  writeFileSync(join(folder, 'README.md'), '# someone else\n');
  workbench = await startWorkbench({ host: installTestHost(), folder, stateFolder: join(scratch, 'state'), development: true });
}, 120_000);

afterAll(async () => {
  await workbench?.stop();
  rmSync(scratch, { recursive: true, force: true });
}, 60_000);

describe('npm start', () => {
  it('sends a request without the token to the sign-in page: the workbench, its static files and its proxy', async () => {
    const origin = workbench.server.origin;
    for (const path of ['/', `/?folder=${encodeURIComponent('/')}`, '/proxy/22/', '/absproxy/22/']) {
      const response = await fetch(`${origin}${path}`, { redirect: 'manual' });
      expect(response.status, path).toBe(302);
      expect(response.headers.get('location'), path).toMatch(/login/);
    }
    // A guessed session cookie is no better than none.
    const guessed = await fetch(origin, { redirect: 'manual', headers: { cookie: `${workbench.server.signInCookie?.name}=guess` } });
    expect(guessed.status).toBe(302);
  });

  it('refuses a terminal or extension-host socket without the token', async () => {
    const { port } = new URL(workbench.server.origin);
    const answer = await new Promise<number>((done, fail) => {
      const request = httpRequest({
        host: '127.0.0.1',
        port: Number(port),
        path: '/?reconnectionToken=x&reconnection=false&skipWebSocketFrames=false',
        headers: {
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-version': '13',
          'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        },
      });
      request.once('upgrade', (_response, socket) => {
        socket.destroy();
        done(101);
      });
      request.once('response', (response) => {
        response.resume();
        done(response.statusCode ?? 0);
      });
      request.once('error', fail);
      request.end();
    });
    expect(answer).not.toBe(101);
  });

  it('signs in through the printed address, and then serves the workbench', async () => {
    const door = await fetch(workbench.door.url, { redirect: 'manual' });
    expect(door.status).toBe(302);
    expect(door.headers.get('location')).toBe(workbench.workbenchUrl);
    const cookie = (door.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const page = await fetch(workbench.workbenchUrl, { redirect: 'manual', headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/workbench/);
  });

  it("takes the token as the password on code-server's own sign-in page", async () => {
    const response = await fetch(`${workbench.server.origin}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: workbench.server.origin },
      body: `password=${encodeURIComponent(workbench.token)}`,
    });
    expect(response.status).toBe(302);
    expect(response.headers.get('set-cookie')).toContain(`${workbench.server.signInCookie?.name}=`);
  });

  it('keeps workspace trust on: code-server was not told to switch it off', async () => {
    const page = await fetch(workbench.workbenchUrl, {
      headers: { cookie: `${workbench.server.signInCookie?.name}=${workbench.server.signInCookie?.value}` },
    });
    const html = await page.text();
    // The workbench's own configuration, which said `enableWorkspaceTrust: false` with trust switched off.
    expect(html).toMatch(/enableWorkspaceTrust&quot;:true/);
  });
});
