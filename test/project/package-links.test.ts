// A link in the README or the docs opens from an installed package too: every relative link points to a
// file that package.json "files" ships (README.md, package.json and LICENSE always ship).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/package-root.ts";

const manifest = JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")) as { files: string[] };
const ALWAYS = ["README.md", "package.json", "LICENSE"];
const shipped = (path: string) =>
  ALWAYS.includes(path) ||
  manifest.files.some((entry) => path === entry || path.startsWith(`${entry.replace(/\/$/, "")}/`));

const pages = [
  "README.md",
  ...readdirSync(join(packageRoot, "docs")).map((name) => `docs/${name}`),
  ...readdirSync(join(packageRoot, "requirements")).map((name) => `requirements/${name}`),
].filter((page) => page.endsWith(".md"));

function relativeLinks(page: string): string[] {
  const text = readFileSync(join(packageRoot, page), "utf8");
  return [...text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
    .map((match) => match[1] as string)
    .filter((target) => !/^[a-z]+:/.test(target))
    .map((target) => normalize(join(dirname(page), target)));
}

describe("links of the README and docs", () => {
  it("are read from the pages (the README links the docs)", () => {
    expect(relativeLinks("README.md")).toContain("docs/target-file.md");
  });

  it.each(pages)("%s: every relative link points to a file the package ships", (page) => {
    const broken = relativeLinks(page).filter(
      (path) => !shipped(path) || !existsSync(join(packageRoot, path)),
    );
    expect(broken, "ship the file (package.json files) or name it without a link").toEqual([]);
  });
});
