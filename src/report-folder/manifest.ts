// The report folder's manifest: the sha256 of every file, optionally signed with Ed25519 (node:crypto,
// keys in PEM). manifest.json embeds the public key; manifest.sig holds the signature over the exact
// bytes of manifest.json, so one changed byte anywhere (a report file, the manifest, the signature) is
// detected, naming the file. Verification also checks that report.json, junit.xml and ctrf.json tell the
// same story, the attestation (attestation.ts) and, for a certificate, that every MUST check of the kit ran.

import {
  createHash,
  createPrivateKey,
  createPublicKey,
  type KeyObject,
  sign as signBytes,
  verify as verifySignature,
} from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { countLines, EVENTS_FILE } from "../evidence/event-evidence.ts";
import { HAR_FILE, PLAIN_HAR_FILE, readHarText } from "../evidence/har.ts";
import { PSEUDONYMS } from "../redaction/pseudonyms.ts";
import { REDACTED } from "../redaction/redact.ts";
import { CTRF_FILE, ctrfStatusOf } from "../report/ctrf.ts";
import { isFailure } from "../report/junit.ts";
import { junitTestcases } from "../report/junit-testcases.ts";
import type { CheckResult, RunResult } from "../result/model.ts";
import { verifyAttestation } from "./attestation.ts";

export const MANIFEST_FILE = "manifest.json";
export const SIGNATURE_FILE = "manifest.sig";
export const manifestVersion = 1;

export interface Manifest {
  manifestVersion: typeof manifestVersion;
  runId: string;
  algorithm: "sha256";
  files: { path: string; sha256: string; bytes: number }[];
  /** Present when signed: the Ed25519 public key (SPKI PEM) whose signature is in manifest.sig. */
  signature?: { algorithm: "Ed25519"; publicKey: string; file: typeof SIGNATURE_FILE };
}

export class SignKeyError extends Error {
  override name = "SignKeyError";
}

/** Reads an Ed25519 private key (PEM); any other key is refused with how to make a right one. */
export function loadSignKey(file: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(readFileSync(file));
  } catch (error) {
    throw new SignKeyError(
      `${file}: not a readable private key in PEM (${error instanceof Error ? error.message : String(error)}); ` +
        "make one with: openssl genpkey -algorithm ed25519 -out lckit-sign.pem",
    );
  }
  if (key.asymmetricKeyType !== "ed25519")
    throw new SignKeyError(
      `${file}: expected an Ed25519 key, got ${key.asymmetricKeyType ?? "a symmetric key"}; ` +
        "make one with: openssl genpkey -algorithm ed25519 -out lckit-sign.pem",
    );
  return key;
}

/** Every file under the folder, as relative paths with "/", sorted. */
export function listFiles(dir: string, root = dir): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? listFiles(join(dir, e.name), root) : [relative(root, join(dir, e.name))],
    )
    .map((p) => p.split("\\").join("/"))
    .sort();
}

const sha256 = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("hex");

/** The manifest exactly as written: verification recomputes it and compares bytes. */
export function serializeManifest(manifest: Manifest): string {
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** Writes manifest.json (and manifest.sig when a key is given) for every file now in the folder. */
export function writeManifest(folder: string, runId: string, signKey?: KeyObject): Manifest {
  const files = listFiles(folder)
    .filter((p) => p !== MANIFEST_FILE && p !== SIGNATURE_FILE)
    .map((path) => {
      const bytes = readFileSync(join(folder, path));
      return { path, sha256: sha256(bytes), bytes: bytes.length };
    });
  const manifest: Manifest = {
    manifestVersion,
    runId,
    algorithm: "sha256",
    files,
    ...(signKey === undefined
      ? {}
      : {
          signature: {
            algorithm: "Ed25519" as const,
            publicKey: createPublicKey(signKey).export({ type: "spki", format: "pem" }).toString(),
            file: SIGNATURE_FILE,
          },
        }),
  };
  const text = serializeManifest(manifest);
  writeFileSync(join(folder, MANIFEST_FILE), text);
  if (signKey !== undefined)
    writeFileSync(
      join(folder, SIGNATURE_FILE),
      `${signBytes(null, Buffer.from(text), signKey).toString("base64")}\n`,
    );
  return manifest;
}

export interface Verification {
  ok: boolean;
  /** Each problem names the file it is about. */
  problems: string[];
  /** What was checked and held. */
  checked: string[];
  signed: boolean;
}

export interface VerifyOptions {
  /** A public key the verifier trusts (PEM text): the signature must be by it. */
  publicKey?: string;
  /** Every MUST check id of the kit version that verifies (for certificates), and that version. */
  kit?: { version: string; mustIds: readonly string[]; catalogueSha256: string };
}

export function verifyFolder(folder: string, options: VerifyOptions = {}): Verification {
  const problems: string[] = [];
  const checked: string[] = [];
  const manifestPath = join(folder, MANIFEST_FILE);
  if (!existsSync(manifestPath) || !statSync(manifestPath).isFile())
    return {
      ok: false,
      problems: [
        `${MANIFEST_FILE}: missing; only a report written with a manifest (lckit run) can be verified`,
      ],
      checked,
      signed: false,
    };
  const manifestText = readFileSync(manifestPath, "utf8");
  let manifest: Manifest;
  try {
    manifest = JSON.parse(manifestText) as Manifest;
  } catch (error) {
    return { ok: false, problems: [`${MANIFEST_FILE}: not JSON (${String(error)})`], checked, signed: false };
  }
  if (!Array.isArray(manifest.files))
    return { ok: false, problems: [`${MANIFEST_FILE}: no "files" list`], checked, signed: false };
  // The manifest is written in one canonical form: any other byte in it is a change.
  if (serializeManifest(manifest) !== manifestText)
    problems.push(`${MANIFEST_FILE}: changed (not in the form lckit writes it)`);

  // Signature: over the exact bytes of manifest.json.
  const signed = manifest.signature !== undefined;
  // The key the manifest's and the attestation's signatures must be made with.
  let trustedKey: KeyObject | undefined;
  if (signed && manifest.signature) {
    const sigPath = join(folder, SIGNATURE_FILE);
    let embedded: KeyObject | undefined;
    try {
      embedded = createPublicKey(manifest.signature.publicKey);
    } catch {
      problems.push(`${MANIFEST_FILE}: the embedded public key is not a PEM public key`);
    }
    let trusted = embedded;
    if (options.publicKey !== undefined) {
      trusted = createPublicKey(options.publicKey);
      if (embedded !== undefined && !samePublicKey(trusted, embedded))
        problems.push(`${MANIFEST_FILE}: signed with another key than the one given by --public-key`);
    }
    trustedKey = trusted;
    if (!existsSync(sigPath))
      problems.push(`${SIGNATURE_FILE}: missing, but ${MANIFEST_FILE} says it is signed`);
    else if (trusted !== undefined) {
      const signature = Buffer.from(readFileSync(sigPath, "utf8").trim(), "base64");
      const canonical = `${signature.toString("base64")}\n`;
      if (canonical !== readFileSync(sigPath, "utf8"))
        problems.push(`${SIGNATURE_FILE}: changed (not base64 as written)`);
      else if (!verifySignature(null, Buffer.from(manifestText), trusted, signature))
        problems.push(
          `${MANIFEST_FILE}: its signature in ${SIGNATURE_FILE} does not match (${MANIFEST_FILE} or ${SIGNATURE_FILE} was changed)`,
        );
      else
        checked.push(
          `signature: Ed25519 over ${MANIFEST_FILE}${options.publicKey ? " by the given public key" : " (embedded key)"}`,
        );
    }
  } else if (options.publicKey !== undefined)
    problems.push(`${MANIFEST_FILE}: not signed, but --public-key asks for a signature`);
  else if (existsSync(join(folder, SIGNATURE_FILE)))
    problems.push(`${SIGNATURE_FILE}: present, but ${MANIFEST_FILE} names no signature`);

  // Every file's hash; no file missing, none added.
  const listed = new Set<string>();
  for (const f of manifest.files) {
    listed.add(f.path);
    const path = join(folder, f.path);
    if (!existsSync(path)) {
      problems.push(`${f.path}: missing (listed in ${MANIFEST_FILE})`);
      continue;
    }
    if (sha256(readFileSync(path)) !== f.sha256)
      problems.push(
        `${f.path}: sha256 differs from ${MANIFEST_FILE} (this file or the manifest was changed)`,
      );
  }
  for (const path of listFiles(folder))
    if (path !== MANIFEST_FILE && path !== SIGNATURE_FILE && !listed.has(path))
      problems.push(`${path}: not in ${MANIFEST_FILE} (added after the run)`);
  if (problems.length === 0) checked.push(`${manifest.files.length} files: sha256 as in ${MANIFEST_FILE}`);

  // report.json and junit.xml agree.
  const report = readJson(join(folder, "report.json"), problems);
  const junitPath = join(folder, "junit.xml");
  if (report !== undefined && existsSync(junitPath)) {
    const before = problems.length;
    agree(report, readFileSync(junitPath, "utf8"), problems);
    if (problems.length === before)
      checked.push(`report.json and junit.xml agree on ${report.checks.length} checks`);
  } else if (!existsSync(junitPath)) problems.push("junit.xml: missing");

  // ctrf.json (reports written before it existed have none) shows every check as junit.xml does.
  const ctrfPath = join(folder, CTRF_FILE);
  if (report !== undefined && existsSync(ctrfPath)) {
    const before = problems.length;
    agreeCtrf(report, readFileSync(ctrfPath, "utf8"), problems);
    if (problems.length === before)
      checked.push(`report.json and ${CTRF_FILE} agree on ${report.checks.length} checks`);
  }

  // The in-toto attestation: signature, subjects, predicate.
  verifyAttestation({ folder, files: listFiles(folder), report, trusted: trustedKey }, problems, checked);

  // evidence.har: valid HAR; every entry a check cites exists and holds one of the exchanges the check
  // used; every exchange of a check's evidence is cited, in an entry with its method and URL.
  // A folder written before the HAR was compressed holds it plain.
  const harPath = [HAR_FILE, PLAIN_HAR_FILE].map((name) => join(folder, name)).find((p) => existsSync(p));
  if (report !== undefined && harPath !== undefined) verifyHar(harPath, report, problems, checked);
  else if (report?.checks.some((c) => (c.harEntries ?? []).length > 0))
    problems.push(`${HAR_FILE}: missing, but checks of report.json cite its entries`);

  // events.ndjson (an event check's messages): every line a check cites is in the file.
  verifyEventLines(folder, report, problems, checked);

  // A certificate: every MUST check of the kit version ran and passed.
  if (report !== undefined && (report.verdict === "CERTIFIED" || report.certification?.certified)) {
    const before = problems.length;
    if (report.verdict !== "CERTIFIED" || report.certification?.certified !== true)
      problems.push("report.json: verdict and certification disagree about the certificate");
    const kit = options.kit;
    if (kit === undefined)
      problems.push("report.json: a certificate, but no kit to check its MUST checks against");
    else if (kit.version !== report.kit.version)
      problems.push(
        `report.json: certified by kit ${report.kit.version}; verify with that version (this is ${kit.version})`,
      );
    else {
      if (report.spec.catalogue.sha256 !== kit.catalogueSha256)
        problems.push(
          "report.json: the requirement catalogue's sha256 is not the one this kit version ships",
        );
      const byId = new Map(report.checks.map((c) => [c.id, c]));
      const notPassed = kit.mustIds.filter((id) => byId.get(id)?.status !== "passed");
      if (notPassed.length > 0)
        problems.push(
          `report.json: a certificate, but ${notPassed.length} MUST checks of kit ${kit.version} did not run and pass (${notPassed.slice(0, 5).join(", ")})`,
        );
    }
    if (problems.length === before)
      checked.push(
        `certificate: all ${kit?.mustIds.length} MUST checks of kit ${kit?.version} ran and passed`,
      );
  }
  return { ok: problems.length === 0, problems, checked, signed };
}

interface HarEntry {
  request?: { method?: string; url?: string };
  _exchangeId?: unknown;
}

function verifyHar(path: string, report: RunResult, problems: string[], checked: string[]): void {
  const before = problems.length;
  const name = basename(path);
  let entries: HarEntry[];
  try {
    const har = JSON.parse(readHarText(path)) as { log?: { version?: string; entries?: unknown } };
    if (har.log?.version !== "1.2" || !Array.isArray(har.log.entries))
      throw new Error("no log.entries of HAR 1.2");
    entries = har.log.entries as HarEntry[];
  } catch (error) {
    problems.push(`${name}: not a HAR 1.2 file (${error instanceof Error ? error.message : String(error)})`);
    return;
  }
  const entryOf = new Map<number, number>();
  entries.forEach((e, i) => {
    if (typeof e._exchangeId === "number") entryOf.set(e._exchangeId, i);
  });
  let cited = 0;
  for (const c of report.checks) {
    const used = new Set(c.exchangeIds ?? []);
    const citedIds = new Map<number, HarEntry>();
    for (const i of c.harEntries ?? []) {
      cited += 1;
      const entry = Number.isInteger(i) ? entries[i] : undefined;
      if (entry === undefined) {
        problems.push(`${name}: check ${c.id} cites entry ${i}, which does not exist`);
        continue;
      }
      const id = entry._exchangeId;
      if (typeof id !== "number" || !used.has(id))
        problems.push(
          `${name}: entry ${i} cited by ${c.id} holds exchange ${String(id)}, which is not one the check used`,
        );
      else citedIds.set(id, entry);
    }
    // The evidence shown in the report is among the cited entries, the same request. (An exchange the
    // HAR has no entry for was never sent: refused before it reached the wire.)
    for (const x of c.evidence ?? []) {
      if (x.id === undefined || !entryOf.has(x.id)) continue;
      const entry = citedIds.get(x.id);
      if (entry === undefined)
        problems.push(
          `${name}: exchange ${x.id} of ${c.id}'s evidence is entry ${entryOf.get(x.id)}, which the check does not cite`,
        );
      else if (entry.request?.method !== x.request.method || asReported(entry.request?.url) !== x.request.url)
        problems.push(
          `${name}: the entry of exchange ${x.id} cited by ${c.id} is not its ${x.request.method} ${x.request.url}`,
        );
    }
  }
  if (problems.length === before)
    checked.push(`${name}: ${entries.length} exchanges; all ${cited} entries the checks cite exist`);
}

function verifyEventLines(
  folder: string,
  report: RunResult | undefined,
  problems: string[],
  checked: string[],
): void {
  if (report === undefined) return;
  const path = join(folder, EVENTS_FILE);
  const citing = report.checks.filter((c) => (c.eventLines ?? []).length > 0);
  if (!existsSync(path)) {
    if (citing.length > 0)
      problems.push(
        `${EVENTS_FILE}: missing, but ${citing.length} checks of report.json cite its lines (${citing[0]?.id}, ...)`,
      );
    return;
  }
  const text = readFileSync(path, "utf8");
  const lines = countLines(text);
  if (text.length > 0 && !text.endsWith("\n"))
    problems.push(`${EVENTS_FILE}: its last line is cut (no line end): not as lckit writes it`);
  const before = problems.length;
  let cited = 0;
  for (const c of citing)
    for (const line of c.eventLines ?? []) {
      cited += 1;
      if (!Number.isInteger(line) || line < 1 || line > lines)
        problems.push(
          `${EVENTS_FILE}: check ${c.id} cites line ${line}, which does not exist (${lines} lines)`,
        );
    }
  if (problems.length === before)
    checked.push(`${EVENTS_FILE}: ${lines} messages; all ${cited} lines the checks cite exist`);
}

function samePublicKey(a: KeyObject, b: KeyObject): boolean {
  return a.export({ type: "spki", format: "der" }).equals(b.export({ type: "spki", format: "der" }));
}

function readJson(path: string, problems: string[]): RunResult | undefined {
  if (!existsSync(path)) {
    problems.push("report.json: missing");
    return undefined;
  }
  try {
    const r = JSON.parse(readFileSync(path, "utf8")) as RunResult;
    if (!Array.isArray(r.checks)) throw new Error('no "checks" list');
    return r;
  } catch (error) {
    problems.push(`report.json: not a report (${error instanceof Error ? error.message : String(error)})`);
    return undefined;
  }
}

/** Every check of report.json is a test of ctrf.json with the status ctrf.ts gives it, and nothing more;
 *  the summary counts what the tests say. */
function agreeCtrf(report: RunResult, text: string, problems: string[]): void {
  let tests: { name?: unknown; status?: unknown }[];
  let summary: Record<string, unknown>;
  try {
    const ctrf = JSON.parse(text) as {
      reportFormat?: string;
      results?: { tests?: unknown; summary?: Record<string, unknown> };
    };
    if (ctrf.reportFormat !== "CTRF" || !Array.isArray(ctrf.results?.tests))
      throw new Error("no CTRF results.tests");
    tests = ctrf.results.tests as typeof tests;
    summary = ctrf.results.summary ?? {};
  } catch (error) {
    problems.push(
      `${CTRF_FILE}: not a CTRF report (${error instanceof Error ? error.message : String(error)})`,
    );
    return;
  }
  const statuses = new Map<string, unknown>();
  for (const t of tests) {
    const name = String(t.name);
    if (statuses.has(name)) problems.push(`${CTRF_FILE}: test ${name} appears twice`);
    statuses.set(name, t.status);
  }
  for (const c of report.checks) {
    const got = statuses.get(c.id);
    if (!statuses.has(c.id)) problems.push(`${CTRF_FILE}: check ${c.id} of report.json is missing`);
    else if (got !== ctrfStatusOf(c))
      problems.push(
        `${CTRF_FILE}: check ${c.id} is ${String(got)} there but ${c.status} (${c.level}) in report.json`,
      );
    statuses.delete(c.id);
  }
  for (const name of statuses.keys()) problems.push(`${CTRF_FILE}: test ${name} is not in report.json`);
  for (const status of ["passed", "failed", "skipped", "pending", "other"])
    if (summary[status] !== tests.filter((t) => t.status === status).length)
      problems.push(`${CTRF_FILE}: summary.${status} is not the number of its tests with that status`);
  if (summary.tests !== tests.length)
    problems.push(`${CTRF_FILE}: summary.tests is not the number of its tests`);
}

type JunitOutcome = "passed" | "failure" | "error" | "skipped";

/** The outcome junit.xml must show for a check (junit.ts's mapping). */
function expectedOutcome(c: CheckResult): JunitOutcome {
  if (c.status === "skipped") return "skipped";
  if (c.status === "broken") return "error";
  if (c.status === "not-exercised") return isFailure(c) ? "failure" : "skipped";
  return isFailure(c) ? "failure" : "passed";
}

function unescapeXml(text: string): string {
  return text
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)))
    .replace(/&#x([0-9a-f]+);/gi, (_, n: string) => String.fromCodePoint(Number.parseInt(n, 16)))
    .replace(/&amp;/g, "&");
}

/** Every check of report.json is a testcase of junit.xml with the same outcome, and nothing more. */
function agree(report: RunResult, junit: string, problems: string[]): void {
  const cases = new Map<string, JunitOutcome>();
  for (const testcase of junitTestcases(junit)) {
    const body = testcase.body ?? "";
    const outcome: JunitOutcome = /<failure[\s>]/.test(body)
      ? "failure"
      : /<error[\s>]/.test(body)
        ? "error"
        : /<skipped[\s/>]/.test(body)
          ? "skipped"
          : "passed";
    const name = unescapeXml(testcase.name);
    if (cases.has(name)) problems.push(`junit.xml: testcase ${name} appears twice`);
    cases.set(name, outcome);
  }
  for (const c of report.checks) {
    const got = cases.get(c.id);
    if (got === undefined) problems.push(`junit.xml: check ${c.id} of report.json is missing`);
    else if (got !== expectedOutcome(c))
      problems.push(`junit.xml: check ${c.id} is ${got} there but ${c.status} (${c.level}) in report.json`);
    cases.delete(c.id);
  }
  for (const name of cases.keys()) problems.push(`junit.xml: testcase ${name} is not in report.json`);
}

/** A HAR entry's URL as the report shows it: the recording labels each secret (pseudonyms.ts) where the
 *  report has one placeholder for all. */
function asReported(url: string | undefined): string | undefined {
  return url?.replace(PSEUDONYMS, REDACTED);
}
