import assert from 'node:assert/strict';
import type { E2eCheck } from './workbench';

const checks: E2eCheck[] = [
  {
    name: 'the palette lists the Rung commands, and Rung: Show Log opens the Rung output channel',
    async run(page, workbench) {
      const rows = await workbench.paletteRows('Rung:');
      assert.ok(
        rows.some((row) => row.includes('Rung: Show Log')),
        `the palette listed ${JSON.stringify(rows)}`,
      );
      await workbench.runCommand('Rung: Show Log');
      const output = page.locator('.part.panel .output-view');
      await output.getByText('Rung is installed').waitFor();
      await workbench.screenshot('rung-show-log');
    },
  },
];
export default checks;
