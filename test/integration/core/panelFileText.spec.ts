import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PanelError } from '../../../src/core/panel';
import { PANEL_FILE_MAX_BYTES, readPanelFileText } from '../../../src/core/panelFileText';
import { makeTempDir } from '../../unit/support/tempDir';

let dir: ReturnType<typeof makeTempDir>;
let panelPath: string;
beforeEach(() => {
  dir = makeTempDir('rung-panel-file-');
  mkdirSync(join(dir.path, '.rung'));
  panelPath = join(dir.path, '.rung', 'panel.json');
});
afterEach(() => dir.remove());

function refusal(path: string, options: { followLinks?: boolean } = {}): string {
  try {
    readPanelFileText(path, options);
  } catch (error) {
    if (error instanceof PanelError) return `${error.source}: ${error.issues.join('; ')}`;
    throw error;
  }
  throw new Error('the file was read');
}

describe('readPanelFileText', () => {
  it('reads a panel file and says there is none when there is none', () => {
    expect(readPanelFileText(panelPath)).toBeUndefined();
    writeFileSync(panelPath, '{"models":[]}');
    expect(readPanelFileText(panelPath)).toBe('{"models":[]}');
  });

  it('refuses .rung/panel.json linked to /dev/zero before reading a byte', () => {
    symlinkSync('/dev/zero', panelPath);
    expect(refusal(panelPath)).toBe(
      `${panelPath}: the file is a symbolic link to /dev/zero, and Rung does not follow a link for a panel file in the workspace (a cloned folder could point it at any file of yours); put the panel file itself there`,
    );
  });

  it('refuses .rung/panel.json when .rung itself is a link to another folder, leaving the file there unread', () => {
    const elsewhere = join(dir.path, 'elsewhere');
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, 'panel.json'), '{"models":[]}');
    const linked = join(dir.path, 'linked');
    mkdirSync(linked);
    symlinkSync(elsewhere, join(linked, '.rung'));
    const path = join(linked, '.rung', 'panel.json');
    expect(refusal(path)).toBe(
      `${path}: its folder ${join(linked, '.rung')} is a symbolic link to ${elsewhere}, and Rung does not follow a link for a panel file in the workspace (a cloned folder could point it at any folder of yours); make .rung a real folder`,
    );
    expect(readPanelFileText(path, { followLinks: true })).toBe('{"models":[]}');
  });

  it('refuses a link the user named when it leads to a device, a pipe or a folder', () => {
    symlinkSync('/dev/zero', panelPath);
    expect(refusal(panelPath, { followLinks: true })).toBe(`${panelPath}: it is a device, not a file; a panel is a JSON file`);
    const fifo = join(dir.path, 'fifo');
    execFileSync('mkfifo', [fifo]);
    expect(refusal(fifo)).toBe(`${fifo}: it is a named pipe, not a file; a panel is a JSON file`);
    expect(refusal(join(dir.path, '.rung'))).toBe(`${join(dir.path, '.rung')}: it is a directory, not a file; a panel is a JSON file`);
  });

  it('refuses a file larger than any panel, saying how large', () => {
    writeFileSync(panelPath, Buffer.alloc(PANEL_FILE_MAX_BYTES + 1, 0x20));
    expect(refusal(panelPath)).toBe(`${panelPath}: the file is 1.0 MiB, larger than any panel (at most 1.0 MiB); it was not read`);
  });
});
