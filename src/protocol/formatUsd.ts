/**
 * USD as every Rung surface writes it: `$0` for a local call, four decimals below a cent (`$0.0004`),
 * three below a dollar (`$0.052`), cents from a dollar up (`$2.50`); `$?` when unknown.
 *
 * @remarks
 * Enough digits to tell a local call from a cheap cloud one, whose cost is a fraction of a cent; zeros
 * past the cents are dropped, so a list price reads `$0.15`, not `$0.150`. One function for the status
 * bar, the chat's closing line, the log and the ledger page, which once each had a rule of their own
 * and wrote the same cost three ways. In the protocol because the webview may import nothing else.
 */
export function formatUsd(amount: number | null | undefined): string {
  if (amount === null || amount === undefined || !Number.isFinite(amount)) return '$?';
  if (amount === 0) return '$0';
  const size = Math.abs(amount);
  const digits = size >= 1 ? 2 : size >= 0.01 ? 3 : 4;
  return `$${amount.toFixed(digits).replace(/(\.\d\d\d*?)0+$/, '$1')}`;
}
