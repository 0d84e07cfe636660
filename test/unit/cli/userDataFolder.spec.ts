import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { userDataFolder } from '../../../src/cli/userDataFolder';

describe("the rung CLI's data folder", () => {
  it('is the XDG data folder, else ~/.local/share from HOME, else LOCALAPPDATA', () => {
    expect(userDataFolder({ XDG_DATA_HOME: '/home/ana/.data', HOME: '/home/ana' })).toBe(join('/home/ana/.data', 'rung'));
    expect(userDataFolder({ HOME: '/home/ana' })).toBe(join('/home/ana', '.local', 'share', 'rung'));
    expect(userDataFolder({ LOCALAPPDATA: '/c/Users/ana/AppData/Local' })).toBe(join('/c/Users/ana/AppData/Local', 'rung', 'data'));
  });

  it('is none for an environment that names no absolute folder, rather than one read in whatever folder rung runs in', () => {
    expect(userDataFolder({ XDG_DATA_HOME: 'data', HOME: '.' })).toBeUndefined();
    expect(userDataFolder({})).toBeUndefined();
  });
});
