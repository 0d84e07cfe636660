import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { userDataFolder } from '../../../src/cli/userDataFolder';

describe("the rung CLI's data folder", () => {
  it('is RUNG_DATA_HOME when it is absolute, else the XDG data folder, else each system’s usual place', () => {
    expect(userDataFolder({ RUNG_DATA_HOME: '/srv/rung', XDG_DATA_HOME: '/x' }, 'linux')).toBe('/srv/rung');
    expect(userDataFolder({ XDG_DATA_HOME: '/home/ana/.data', HOME: '/home/ana' }, 'linux')).toBe(join('/home/ana/.data', 'rung'));
    expect(userDataFolder({ HOME: '/home/ana' }, 'linux')).toBe(join('/home/ana', '.local', 'share', 'rung'));
    expect(userDataFolder({ HOME: '/Users/ana' }, 'darwin')).toBe(join('/Users/ana', 'Library', 'Application Support', 'rung'));
    expect(userDataFolder({ HOME: '/home/ana', LOCALAPPDATA: 'C:\\Users\\ana\\AppData\\Local' }, 'win32')).toBe(
      join('C:\\Users\\ana\\AppData\\Local', 'rung'),
    );
  });

  it('is never a relative folder, which would be read in whatever folder rung runs in', () => {
    expect(userDataFolder({ RUNG_DATA_HOME: '.rung', XDG_DATA_HOME: 'data', HOME: '/home/ana' }, 'linux')).toBe(
      join('/home/ana', '.local', 'share', 'rung'),
    );
  });
});
