// A base address loses its trailing slashes by a loop from the end. It must give what /\/+$/ gave (kept
// here as the oracle) and stay linear where that expression was quadratic: a long run of slashes that is
// not at the end of a target file's address.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { joinUrl } from "../../src/client/http.ts";
import { trimTrailingSlashes } from "../../src/http/trailing-slashes.ts";
import { routeOf } from "../../src/pact/provider-router.ts";

const seed = Number(process.env.FC_SEED ?? 20_261_123);

const oracle = (text: string) => text.replace(/\/+$/, "");

const pieces = fc.constantFrom("/", "//", "a", "http://h", ":", "?", "\n", " ", "\\", "%2F");
const texts = fc.array(pieces, { maxLength: 30 }).map((parts) => parts.join(""));

describe("trailing slashes", () => {
  it("come off exactly as the regular expression they replace took them off", () => {
    fc.assert(
      fc.property(texts, (text) => {
        expect(trimTrailingSlashes(text)).toBe(oracle(text));
      }),
      { seed, numRuns: 3000 },
    );
  });

  it("stay linear in a long run of slashes before the end (the old expression took minutes)", () => {
    const run = "/".repeat(1_000_000);
    const base = `http://target.example${run}x`;
    expect(trimTrailingSlashes(base)).toBe(base);
    expect(trimTrailingSlashes(`${base}${run}`)).toBe(base);
    expect(joinUrl(`${base}/`, "/oauth/token")).toBe(`${base}/oauth/token`);
    expect(routeOf("GET", "/healthcheck", "http://platform.example/", `${base}${run}`)).toBe(
      `${base}/healthcheck`,
    );
    expect(routeOf("POST", "/oauth/token", `${base}/`, "http://rdm.example")).toBe(`${base}/oauth/token`);
  });
});
