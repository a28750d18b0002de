// The folder-level import graph of src/ and suites/, read from the TypeScript import and export statements
// (static, dynamic and type-only alike: each one is a dependency of the folder). A folder is a top-level unit
// of the flow: src/<name> (its subfolders belong to it), suites, suites/support; a file directly in src/ is
// a unit of its own (src/index.ts, the public entry, imports every folder; src/package-root.ts is imported
// by many: as one "src" unit the two would draw a circle through everything).
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

export interface ImportEdge {
  from: string;
  to: string;
  /** One import that makes the edge, "file -> specifier", for the message. */
  example: string;
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "generated" ? [] : sourceFiles(path);
    return /\.(ts|mts)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The folder unit a repository-relative path belongs to, or null outside src/ and suites/. */
export function unitOf(path: string): string | null {
  const parts = path.split(/[\\/]/);
  if (parts[0] === "suites") return parts[1] === "support" && parts.length > 2 ? "suites/support" : "suites";
  if (parts[0] !== "src") return null;
  // Inside src/events, src/commands and src/rules the same one level down (their folders, their top files),
  // so their own circles and upward imports show too.
  const depth = parts[1] === "events" || parts[1] === "commands" || parts[1] === "rules" ? 3 : 2;
  return parts.length > depth ? parts.slice(0, depth).join("/") : parts.join("/");
}

/** Every folder-to-folder edge of src/ and suites/ (src/generated is generated output: left out). */
export function folderEdges(root: string): ImportEdge[] {
  const edges = new Map<string, ImportEdge>();
  for (const file of [...sourceFiles(join(root, "src")), ...sourceFiles(join(root, "suites"))]) {
    const from = unitOf(relative(root, file));
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(SPECIFIER)) {
      const target = relative(root, resolve(dirname(file), match[1] as string));
      const to = unitOf(target);
      if (!from || !to || from === to || target.startsWith("src/generated")) continue;
      const key = `${from} -> ${to}`;
      if (!edges.has(key)) edges.set(key, { from, to, example: `${relative(root, file)} -> ${match[1]}` });
    }
  }
  return [...edges.values()].sort((a, b) => `${a.from} ${a.to}`.localeCompare(`${b.from} ${b.to}`));
}

/** The import circles between folders: the strongly connected components of more than one folder (Tarjan). */
export function folderCircles(edges: ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) {
    next.set(from, [...(next.get(from) ?? []), to]);
    if (!next.has(to)) next.set(to, []);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) as number, low.get(to) as number));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node) as number, index.get(to) as number));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) circles.push(component.sort());
    }
  };
  for (const node of [...next.keys()].sort()) if (!index.has(node)) visit(node);
  return circles.sort((a, b) => a.join().localeCompare(b.join()));
}

const PACKAGE_SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["']([^./"'][^"']*)["']/g;

/** The imports of a folder's files that are not relative (node built-ins, packages): "file -> specifier". */
export function packageImports(root: string, folder: string): { file: string; specifier: string }[] {
  return sourceFiles(join(root, folder)).flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(PACKAGE_SPECIFIER)].map((match) => ({
      file: relative(root, file),
      specifier: match[1] as string,
    })),
  );
}
