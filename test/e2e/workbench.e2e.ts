import assert from 'node:assert/strict';
import type { E2eCheck } from './workbench';
import { scaled } from '../timeScale';

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
      await page
        .locator('.statusbar-item', { hasText: 'Rung:' })
        .first()
        .waitFor({ timeout: scaled(60_000) });
      const run = await workbench.runCommandUntil(
        'Rung: Show Log',
        page
          .locator('.part.panel')
          .getByText(/activated\sin\s\d/)
          .first(),
      );
      const asked = page.locator('.part.panel').getByText('the log was asked for (Rung: Show Log)');
      await asked.first().waitFor();
      // Two lines after a second run: the first command ran and its reveal was dropped; one: it never ran.
      if (run === 'second run') console.log(`        (the log holds ${await asked.count()} "asked for" line(s) after the second run)`);
      await workbench.screenshot('rung-show-log');
    },
  },
];
export default checks;
