import { describe, expect, it } from 'vitest';
import { isLoopbackUrl, keyRequired } from '../../../../src/core/providers/keyPolicy';

describe('keyRequired', () => {
  it('needs no key for a server on loopback and one for any other address', () => {
    expect(keyRequired({ baseUrl: 'http://127.0.0.1:1234/v1' })).toBe(false);
    expect(keyRequired({ baseUrl: 'http://localhost:8080/v1' })).toBe(false);
    expect(keyRequired({ baseUrl: 'https://api.openai.com/v1' })).toBe(true);
    expect(keyRequired({ baseUrl: 'http://192.168.1.20:8000/v1' })).toBe(true);
    expect(keyRequired({ baseUrl: undefined })).toBe(true);
  });

  it("follows the panel's key setting over the address either way", () => {
    expect(keyRequired({ baseUrl: 'http://192.168.1.20:8000/v1', key: 'none' })).toBe(false);
    expect(keyRequired({ baseUrl: 'http://127.0.0.1:4000/v1', key: 'required' })).toBe(true);
  });
});

describe('isLoopbackUrl', () => {
  it('knows localhost, 127.0.0.0/8 and ::1 as loopback', () => {
    for (const url of [
      'http://localhost:1234',
      'http://LOCALHOST/v1',
      'http://vllm.localhost:8000/v1',
      'http://127.0.0.1:8080',
      'http://127.8.9.10/v1',
      'http://[::1]:8080/v1',
    ]) {
      expect(isLoopbackUrl(url), url).toBe(true);
    }
  });

  it('does not take a look-alike host, a private network address or a broken URL for loopback', () => {
    for (const url of [
      'http://127.0.0.1.example.com/v1',
      'http://localhost.example.com',
      'http://10.0.0.5:8000',
      'http://0.0.0.0:8000',
      'http://[::2]/',
      'not a url',
      '',
    ]) {
      expect(isLoopbackUrl(url), url).toBe(false);
    }
  });
});
