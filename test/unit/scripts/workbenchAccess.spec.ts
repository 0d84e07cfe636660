import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { codeServerLaunch, type CodeServerOptions } from '../../../scripts/test-host/codeServer';
import { openSignInDoor } from '../../../scripts/test-host/signInDoor';

/**
 * Who can use a code-server the test host starts: `npm start`'s asks for a token and keeps workspace
 * trust on; the suites' own servers, which live for one run, do neither.
 */

const HOST = { folder: '/h', node: '/h/node', entry: '/h/entry.js' };
const BASE: CodeServerOptions = { host: HOST, stateFolder: '/s', workspace: '/w' };
const TOKEN = 'tok_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG';

describe('codeServerLaunch', () => {
  it('signs in with the token and keeps workspace trust on when given both, as npm start does', () => {
    const launch = codeServerLaunch({ ...BASE, token: TOKEN, workspaceTrust: true, automation: false }, 4321);
    expect(launch.args).toContain('--auth');
    expect(launch.args[launch.args.indexOf('--auth') + 1]).toBe('password');
    expect(launch.args).not.toContain('--disable-workspace-trust');
    expect(launch.config).toContain('auth: password');
    const hashed = createHash('sha256').update(TOKEN).digest('hex');
    expect(launch.env.HASHED_PASSWORD).toBe(hashed);
    expect(launch.signInCookie).toEqual({ name: 'code-server-session-rung-4321', value: hashed });
    // The token itself goes nowhere another process or a file could read it: not the arguments, not the config.
    expect(JSON.stringify([launch.args, launch.config, launch.env])).not.toContain(TOKEN);
  });

  it("leaves a suite's server without sign-in and with trust off unless it asks for trust", () => {
    const launch = codeServerLaunch(BASE, 4321);
    expect(launch.args[launch.args.indexOf('--auth') + 1]).toBe('none');
    expect(launch.args).toContain('--disable-workspace-trust');
    expect(launch.env.HASHED_PASSWORD).toBeUndefined();
    expect(launch.signInCookie).toBeUndefined();
  });
});

describe('openSignInDoor', () => {
  async function withDoor(check: (url: string) => Promise<void>): Promise<void> {
    const door = await openSignInDoor({
      token: TOKEN,
      cookie: { name: 'code-server-session-rung-1', value: 'h4sh' },
      target: 'http://127.0.0.1:1/?folder=%2Fw',
    });
    try {
      await check(door.url);
    } finally {
      await door.close();
    }
  }

  it('signs the browser in and sends it to the workbench, given the token in its address', async () => {
    await withDoor(async (url) => {
      expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/\\?token=${TOKEN}$`));
      const response = await fetch(url, { redirect: 'manual' });
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe('http://127.0.0.1:1/?folder=%2Fw');
      expect(response.headers.get('set-cookie')).toBe('code-server-session-rung-1=h4sh; Path=/; HttpOnly; SameSite=Strict');
    });
  });

  it('refuses, setting nothing, without the token, with another, or by another method', async () => {
    await withDoor(async (url) => {
      const origin = new URL(url).origin;
      for (const [address, method] of [
        [origin, 'GET'],
        [`${origin}/?token=`, 'GET'],
        [`${origin}/?token=${TOKEN.slice(0, -1)}`, 'GET'],
        [`${origin}/?token=${TOKEN}x`, 'GET'],
        [`${origin}/other?token=${TOKEN}`, 'GET'],
        [url, 'POST'],
      ] as const) {
        const response = await fetch(address, { method, redirect: 'manual' });
        expect(response.status, `${method} ${address}`).toBe(403);
        expect(response.headers.get('set-cookie')).toBeNull();
      }
    });
  });
});
