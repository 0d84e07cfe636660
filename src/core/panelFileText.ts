/**
 * Reads a panel file's text with the checks a file from someone else's folder needs: a regular file,
 * not a link (unless the user named it themselves), no larger than a panel ever is.
 *
 * @remarks
 * `.rung/panel.json` comes with the folder. Made a link to `/dev/zero`, it was read until 630 MB were in
 * memory; a named pipe would have blocked the read for good; a link to one of the user's files would be
 * parsed and quoted in the error. The panel is the same format everywhere, so this one reader serves
 * the extension's `.rung/panel.json` (links refused, as for every file under `.rung/`) and `rung chat
 * --panel FILE` (a link the user made is followed, to a regular file only).
 */
import { PanelError } from './panel';
import { basename, dirname } from 'node:path';
import {
  describeBytes,
  FileTooLargeError,
  lstatIfExists,
  readFileIfExists,
  refuseUnlessFolder,
  RUNG_FOLDER,
  UnsafePathError,
} from './files/safeFiles';

/**
 * The most bytes a panel file may hold.
 *
 * @remarks
 * `examples/panel.json` is under 2 KB, and a panel of a hundred models with prices and providers about
 * 20 KB; 1 MiB leaves fifty times that and still reads in a few milliseconds.
 */
export const PANEL_FILE_MAX_BYTES = 1024 * 1024;

/**
 * The panel file's text, or undefined when there is none; a file Rung will not read throws a
 * {@link PanelError} naming it and what to do, before a byte of it is read.
 */
export function readPanelFileText(path: string, options: { followLinks?: boolean } = {}): string | undefined {
  return readPanelFileBytes(path, options)?.toString('utf8');
}

/** {@link readPanelFileText}'s bytes, for a caller that tells text from a binary file first. */
export function readPanelFileBytes(path: string, options: { followLinks?: boolean } = {}): Buffer | undefined {
  // O_NOFOLLOW guards the file's own name only: a `.rung` that is itself a link led the read elsewhere.
  if (!options.followLinks && basename(dirname(path)) === RUNG_FOLDER) refuseLinkedFolder(path);
  try {
    return readFileIfExists(path, { maxBytes: PANEL_FILE_MAX_BYTES, ...(options.followLinks ? { followLinks: true } : {}) });
  } catch (error) {
    if (!(error instanceof UnsafePathError)) throw error;
    throw new PanelError(path, [
      error instanceof FileTooLargeError
        ? `the file is ${describeBytes(error.size)}, larger than any panel (at most ${describeBytes(PANEL_FILE_MAX_BYTES)}); it was not read`
        : error.what.startsWith('a symbolic link')
          ? `the file is ${error.what}, and Rung does not follow a link for a panel file in the workspace (a cloned folder could point it at any file of yours); put the panel file itself there`
          : `it is ${error.what}, not a file; a panel is a JSON file`,
    ]);
  }
}

/** Throws a {@link PanelError} when the `.rung` folder holding the panel file at `path` is a symbolic link. */
function refuseLinkedFolder(path: string): void {
  const folder = dirname(path);
  try {
    refuseUnlessFolder(folder);
  } catch (error) {
    if (!(error instanceof UnsafePathError)) throw error;
    throw new PanelError(path, [
      error.what.startsWith('a symbolic link')
        ? `its folder ${folder} is ${error.what}, and Rung does not follow a link for a panel file in the workspace (a cloned folder could point it at any folder of yours); make .rung a real folder`
        : `its folder ${folder} is ${error.what}, not a folder`,
    ]);
  }
}

/**
 * Whether the editor may open the panel file at `path` for the user to mend: a regular file reached
 * through no link, neither its own name nor its `.rung` folder.
 *
 * @remarks
 * The error for a panel file that is a link offered "Open Panel File", and the editor opened the link's
 * target (a file of the user's, outside the folder) ready for editing: the same reach the refusal keeps
 * from the read. Such a file is shown where it is instead, never opened.
 */
export function panelFileOpenable(path: string): boolean {
  const file = lstatIfExists(path);
  const folder = lstatIfExists(dirname(path));
  return file !== undefined && file.isFile() && folder !== undefined && folder.isDirectory();
}
