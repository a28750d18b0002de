// `npm run bench:redact`: how many texts per second the Redactor redacts once a run has learned many tokens.
// A long property run issues thousands of tokens and every one becomes a known secret; every URL, header
// and body of every exchange is then redacted against all of them. The bench builds a Redactor holding
// BENCH_SECRETS tokens (default 2000, shaped like the reference's: 24 random bytes, base64url) and one
// client credential, then redacts a sample of texts like a run's evidence: filtered URLs full of %hh,
// JSON pages, token answers, headers, error bodies echoing a token in some encoding, excerpts cut with
// "...". A run learns tokens as it goes, so a fresh token is added before each exchange (4 texts, 4 headers).
//
// BENCH_BASELINE=<git revision> also measures the Redactor (src/redaction/redact.ts) as it was at that revision, in turns
// with the current one (load on a shared machine comes and goes), and prints the ratio.
// BENCH_SECONDS (default 3) is the least time spent on each implementation.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { dirname, join, posix, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Redactor } from "../src/redaction/redact.ts";

const secretCount = Number(process.env.BENCH_SECRETS ?? 2000);
const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const baseline = process.env.BENCH_BASELINE;

type RedactorLike = Pick<Redactor, "addSecret" | "addCredential" | "text" | "headers">;

// Deterministic tokens (24 bytes of a hash, base64url), so two runs of the bench redact the same texts.
let counter = 0;
const token = () =>
  createHash("sha256").update(`token ${counter++}`).digest().subarray(0, 24).toString("base64url");
const tokens = Array.from({ length: secretCount }, token);
const fresh = Array.from({ length: 10_000 }, token);

const clientId = "viewer-client";
const clientSecret = "s3cr+t %:val/ue";
const page = JSON.stringify({
  values: Array.from({ length: 20 }, (_, i) => ({
    uri: `acme/Country/C${i}`,
    code: `C${i}`,
    label: `Country ${i} (100% sure)`,
    validFrom: "2024-01-01",
  })),
  next: "eyJvZmZzZXQiOjIwfQ",
});

/** The texts of one exchange: request URL, headers, body; answer headers and body. */
function exchange(i: number): { texts: string[]; headers: Record<string, string> } {
  const leaked = tokens[(i * 37) % tokens.length] ?? "";
  const texts = [
    `http://127.0.0.1:8080/lookup/acme/Country?filter=equals%28code%2C%27HN${i}%27%29&limit=20`,
    `http://127.0.0.1:8080/lookup/acme/Country?filter=and%28ge%28validFrom%2C%272024-01-0${i % 9}%27%29%2Cin%28code%2C%5B%27DE%27%2C%27FR%27%5D%29%29`,
    page,
    [
      '{"access_token":"x","token_type":"Bearer","expires_in":60}',
      `{"error":"invalid_token","error_description":"unknown token ${encodeURIComponent(`${leaked}+/`)}"}`,
      `{"debug":"{\\"seen\\":\\"${leaked}\\"}"}`,
      `upstream said: ${page.slice(0, 200)}…`,
      `rejected ${leaked.slice(0, 12)}... (cut)`,
    ][i % 5] ?? "",
  ];
  return {
    texts,
    headers: {
      authorization: `Bearer ${leaked}`,
      "content-type": "application/json",
      "x-request-id": `req-${i}`,
      "x-echo": `filter=equals%28code%2C%27HN${i}%27%29`,
    },
  };
}

function build(make: () => RedactorLike): RedactorLike {
  const r = make();
  r.addCredential(clientId, clientSecret);
  for (const t of tokens) r.addSecret(t);
  return r;
}

/** Redacts exchanges for at least `seconds`; texts per second. */
function measure(r: RedactorLike, from: number): { perSecond: number; texts: number } {
  const started = performance.now();
  let texts = 0;
  let i = 0;
  while (performance.now() - started < seconds * 1000 || i < 4) {
    r.addSecret(fresh[(from + i) % fresh.length]);
    const { texts: sample, headers } = exchange(i);
    for (const text of sample) r.text(text);
    r.headers(headers);
    texts += sample.length + Object.keys(headers).length;
    i++;
  }
  return { perSecond: texts / ((performance.now() - started) / 1000), texts };
}

/** The Redactor of `revision`: its redact.ts and every module it imports by a relative path, as
 *  they were at that revision, copied into a temporary tree (packages come from this tree's node_modules,
 *  which Node finds from the temporary folder's parents only if it sits inside the repository). */
async function baselineRedactor(revision: string): Promise<new () => RedactorLike> {
  mkdirSync(resolve(".tmp"), { recursive: true });
  const dir = mkdtempSync(join(resolve(".tmp"), "bench-redact-"));
  const copied = new Set<string>();
  const copy = (path: string): void => {
    if (copied.has(path)) return;
    copied.add(path);
    const source = execFileSync("git", ["show", `${revision}:${path}`], { encoding: "utf8" });
    const target = join(dir, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, source);
    for (const found of source.matchAll(/from "(\.{1,2}\/[^"]+\.ts)"/g))
      copy(posix.join(posix.dirname(path), found[1] ?? ""));
  };
  // The Redactor's home moved from src/target to src/redaction; a baseline may be from before the move.
  const home = ["src/redaction/redact.ts", "src/target/redact.ts"].find((path) => {
    try {
      execFileSync("git", ["cat-file", "-e", `${revision}:${path}`], { stdio: "ignore" });
      return true;
    } catch {
      return false;
    }
  });
  if (home === undefined) throw new Error(`${revision} has no redact.ts in src/redaction or src/target`);
  copy(home);
  const module = (await import(pathToFileURL(join(dir, home)).href)) as {
    Redactor: new () => RedactorLike;
  };
  return module.Redactor;
}

console.log(`known secrets     ${secretCount} tokens + 1 client credential, +1 token per exchange`);
const current = build(() => new Redactor());
if (baseline === undefined) {
  const { perSecond, texts } = measure(current, 0);
  console.log(`current           ${perSecond.toFixed(0).padStart(8)} texts/s (${texts} texts)`);
} else {
  const Old = await baselineRedactor(baseline);
  const old = build(() => new Old());
  // In turns, so a burst of load hits both.
  const now: number[] = [];
  const before: number[] = [];
  let broke: string | undefined;
  for (let round = 0; round < 2; round++) {
    try {
      if (broke === undefined) before.push(measure(old, round * 1000).perSecond);
    } catch (error) {
      // An implementation that cannot cope with this many secrets at all (a regular expression too
      // large to compile) is reported, not allowed to end the bench.
      broke = (error instanceof Error ? error.message : String(error)).replace(
        /^(.{0,60}).*?(: [^:]*)$/s,
        "$1...$2",
      );
    }
    now.push(measure(current, round * 1000).perSecond);
  }
  const best = (xs: number[]) => Math.max(...xs);
  const label = `before (${baseline.slice(0, 12)})`.padEnd(22);
  if (broke !== undefined) console.log(`${label} broke: ${broke}`);
  else console.log(`${label} ${best(before).toFixed(1).padStart(8)} texts/s`);
  console.log(`${"after  (working tree)".padEnd(22)} ${best(now).toFixed(1).padStart(8)} texts/s`);
  if (broke === undefined) {
    const ratio = best(now) / best(before);
    console.log(`${"ratio".padEnd(22)} ${ratio.toFixed(ratio < 10 ? 2 : 0)}x`);
  }
}
