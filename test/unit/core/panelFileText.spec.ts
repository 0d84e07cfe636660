import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { panelFileOpenable } from '../../../src/core/panelFileText';

/** A workspace folder with a `.rung` folder, and a file of the user's outside it. */
function workspace(): { root: string; rung: string; outside: string } {
  const root = mkdtempSync(join(tmpdir(), 'rung-open-'));
  const rung = join(root, 'app', '.rung');
  mkdirSync(rung, { recursive: true });
  const outside = join(root, 'home');
  mkdirSync(outside);
  writeFileSync(join(outside, '.bashrc'), 'export PATH=$PATH\n');
  return { root, rung, outside };
}

describe('whether the editor may open a panel file for mending', () => {
  it('opens a panel file that is a file in a real .rung folder', () => {
    const { rung } = workspace();
    writeFileSync(join(rung, 'panel.json'), '{ "models": [ }');
    expect(panelFileOpenable(join(rung, 'panel.json'))).toBe(true);
  });

  it("does not open a panel file that is a link to a file of the user's", () => {
    const { rung, outside } = workspace();
    symlinkSync(join(outside, '.bashrc'), join(rung, 'panel.json'));
    expect(panelFileOpenable(join(rung, 'panel.json'))).toBe(false);
  });

  it("does not open a panel file in a .rung folder that is a link to a folder of the user's", () => {
    const { root, outside } = workspace();
    const app = join(root, 'linked');
    mkdirSync(app);
    writeFileSync(join(outside, 'panel.json'), '{}');
    symlinkSync(outside, join(app, '.rung'));
    expect(panelFileOpenable(join(app, '.rung', 'panel.json'))).toBe(false);
  });

  it('does not open a panel file that is not there', () => {
    expect(panelFileOpenable(join(workspace().rung, 'panel.json'))).toBe(false);
  });
});
