/**
 * Keeps provider keys out of everything Rung writes to its log.
 *
 * @remarks
 * The adapters already keep keys out of their messages, but a log line can carry text Rung did not
 * write (a server's error body that echoes the Authorization header, an exception's message). So the
 * log itself replaces every key it knows of, whatever the line's origin. Keys shorter than
 * {@link MIN_KEY_CHARS} are not searched for: they would blank ordinary words, and no provider issues
 * keys that short.
 */

/** The shortest secret worth searching for, characters. */
export const MIN_KEY_CHARS = 8;

export class Redactor {
  private readonly secrets = new Set<string>();

  /** Remembers a key, so every later line hides it. */
  add(secret: string | undefined): void {
    if (secret && secret.length >= MIN_KEY_CHARS) this.secrets.add(secret);
  }

  forget(secret: string | undefined): void {
    if (secret) this.secrets.delete(secret);
  }

  /** The text with every known key, and anything shaped like a bearer token, replaced. */
  redact(text: string): string {
    let out = text;
    for (const secret of this.secrets) out = out.split(secret).join('[key]');
    return out.replace(/(authorization["']?\s*[:=]\s*["']?bearer\s+)[^\s"',}]+/gi, '$1[key]').replace(/\bsk-[A-Za-z0-9_-]{16,}/g, '[key]');
  }
}
