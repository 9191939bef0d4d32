import fs from 'node:fs';
import path from 'node:path';

/**
 * No file in src/ is longer than 250 lines: past that a file holds more than one thing, and the
 * reader has to find which (issue 26). Generated code lives outside src/ (clients/typescript).
 */
const root = path.resolve(__dirname, '../../src');
const LIMIT = 250;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

test(`no file in src/ has more than ${LIMIT} lines`, () => {
  const long = sourceFiles(root)
    .map((file) => ({ file: path.relative(root, file), lines: fs.readFileSync(file, 'utf8').split('\n').length - 1 }))
    .filter((f) => f.lines > LIMIT);
  expect(long).toEqual([]);
});
