import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import path from 'node:path';

/**
 * The upload could not be written to the temporary directory (full, missing, not writable): a
 * fault of the server, not of the file, answered as one (500, logged with its cause).
 */
export class UploadStorageError extends Error {
  constructor(dir: string, cause: unknown) {
    super(`The upload cannot be written to ${dir} while it is read: ${(cause as Error).message}`, { cause });
  }
}

/**
 * An open file with no name in the system's temporary directory (TMPDIR), readable and
 * writable by the service alone (mode 0600): an upload while it is read (zip-source.ts), an
 * import's rows past their first MiBs (spill-file.ts). The file is unlinked as soon as it is
 * open, so the system frees it when the service closes it or dies. Where a file cannot be
 * unlinked while open (Windows), `folder` keeps it, and `closeNameless` removes that.
 */
export interface NamelessFile {
  /** null once closed */
  fd: number | null;
  folder: string | null;
}

/**
 * A new nameless file in `tmpdir`; an UploadStorageError when the directory cannot take one.
 * `name` is what it was called for its moment in a folder of its own, which /proc/<pid>/fd
 * shows (`directory-import-XXXXXX/rows (deleted)`).
 */
export function openNameless(tmpdir: string, name: string): NamelessFile {
  let dir: string | null = null;
  try {
    dir = mkdtempSync(path.join(tmpdir, 'directory-import-'));
    const fd = openSync(path.join(dir, name), 'w+', 0o600);
    try {
      rmSync(dir, { recursive: true });
      return { fd, folder: null };
    } catch {
      return { fd, folder: dir };
    }
  } catch (err) {
    if (dir) rmSync(dir, { recursive: true, force: true });
    throw new UploadStorageError(tmpdir, err);
  }
}

/** Closes the file and removes its folder if it kept one; a second call does nothing. */
export function closeNameless(file: NamelessFile): void {
  if (file.fd === null) return;
  const fd = file.fd;
  file.fd = null;
  try {
    closeSync(fd);
  } finally {
    if (file.folder) rmSync(file.folder, { recursive: true, force: true });
  }
}
