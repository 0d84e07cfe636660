/**
 * A function that replaces every secret (of four characters or more) in a text with `[redacted]`.
 *
 * @remarks
 * Used by the providers' transport on server error text and by the command check on what a workspace
 * command prints: both handle text that may echo a key or a password back. Shorter secrets are left
 * alone because replacing every occurrence of two or three characters would redact ordinary words.
 */
export function redactor(secrets: readonly string[]): (text: string) => string {
  const live = secrets.filter((secret) => secret.length >= 4);
  return (text) => live.reduce((out, secret) => out.split(secret).join('[redacted]'), text);
}
