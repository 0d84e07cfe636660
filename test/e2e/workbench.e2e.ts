import assert from 'node:assert/strict';
import type { E2eCheck } from './workbench';

const checks: E2eCheck[] = [
  {
    name: 'the palette lists the Rung commands, and Rung: Show Log opens the Rung log with the activation time',
    async run(page, workbench) {
      const rows = await workbench.paletteRows('Rung:');
      assert.ok(
        rows.some((row) => row.includes('Rung: Show Log')),
        `the palette listed ${JSON.stringify(rows)}`,
      );
      // Rung's status bar item appears when activation has finished and its commands are registered.
      await page.locator('.statusbar-item', { hasText: 'Rung:' }).first().waitFor({ timeout: 60_000 });
      await workbench.runCommandUntil('Rung: Show Log', page.locator('.part.panel').getByText(/activated\sin\s\d/).first());
      await workbench.screenshot('rung-show-log');
    },
  },
];
export default checks;
