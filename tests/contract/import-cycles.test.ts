import fs from 'node:fs';
import path from 'node:path';

/**
 * No import cycle in src/, counting `import type` too (lint's import-x/no-cycle does not: a
 * cycle of types only is erased at compile time, but it still ties two files together for the
 * reader). Relative imports only: the arrows between modules run through their index.ts, which
 * this follows as it follows any file.
 */
const root = path.resolve(__dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

function importsOf(file: string, known: Set<string>): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const [, spec] of text.matchAll(/from\s+'(\.[^']*)'/g)) {
    const base = path.resolve(path.dirname(file), spec);
    const target = [`${base}.ts`, path.join(base, 'index.ts')].find((candidate) => known.has(candidate));
    if (target) found.push(target);
  }
  return found;
}

/** The files that lie on a cycle, each cycle once (Tarjan's strongly connected components). */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(path.relative(root, w));
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('imports in src/', () => {
  const files = sourceFiles(root);
  const known = new Set(files);
  const graph = new Map(files.map((f) => [f, importsOf(f, known)]));

  it('follow relative imports (the walk itself finds the arrows it should)', () => {
    const router = graph.get(path.join(root, 'modules/contacts/http/contacts.router.ts'))!;
    expect(router).toContain(path.join(root, 'modules/contacts/http/contacts.validators.ts'));
  });

  it('form no cycle, type imports counted', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('would report a cycle of type imports (the check can fail)', () => {
    const a = path.join(root, 'a.ts');
    const b = path.join(root, 'b.ts');
    expect(cycles(new Map([[a, [b]], [b, [a]]]))).toEqual([['a.ts', 'b.ts']]);
  });
});
