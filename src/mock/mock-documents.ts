// Writes the contract's documents for Prism: resolved (no relative $ref to follow) and with the server
// variable replaced by the concrete loopback URL, so Prism's server validation and its printed URLs agree.
// The copy also carries realistic-data hints (realistic-data.ts) for `--dynamic`: they narrow what Prism's
// generator invents to values a real deployment sends, and live only here, never in the consumer contract.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Host, loadContract } from "../contract/index.ts";
import { withRealisticHints } from "./realistic-data.ts";

/** The documents written for Prism and how to remove them. */
export interface MockDocuments {
  /** Path of the JSON document written for each host. */
  files: Record<Host, string>;
  /** Removes the temporary directory. */
  remove(): void;
}

/** Writes both resolved documents, with concrete server URLs, to a fresh temporary directory. */
export function writeMockDocuments(
  urls: Record<Host, string>,
  options: { realistic?: boolean } = {},
): MockDocuments {
  const { documents } = loadContract();
  const dir = mkdtempSync(join(tmpdir(), "lckit-mock-"));
  const files = {} as Record<Host, string>;
  for (const host of ["platform", "lookup-data"] as const) {
    const document = {
      // Static examples are served as the contract has them; the hints shape generated answers only.
      ...(options.realistic ? withRealisticHints(documents[host]) : documents[host]),
      servers: [{ url: urls[host], description: `Prism mock of ${host} (from openapi/${host}.yaml)` }],
    };
    const file = join(dir, `${host}.json`);
    writeFileSync(file, JSON.stringify(document, null, 2));
    files[host] = file;
  }
  return { files, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
