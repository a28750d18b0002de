// The signed attestation of a run (lckit run --attest, and every --certify run): the in-toto Statement of
// in-toto.ts in a DSSE envelope (attestation.intoto.json) signed with the --sign-key Ed25519 key, and the
// same envelope in a Sigstore bundle v0.3 (attestation.sigstore.json) whose verification material is that
// public key, with no transparency log, for sigstore tooling. The DSSE encoding and the bundle are
// sigstore-js's (@sigstore/core, @sigstore/bundle); the key and the signature are node:crypto's, as for
// manifest.sig. Verification checks the signature, every subject's sha256, that every report file is a
// subject, and that the predicate says what report.json says.

import {
  createHash,
  createPublicKey,
  type KeyObject,
  sign as signBytes,
  verify as verifySignature,
} from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  assertBundle,
  BUNDLE_V03_MEDIA_TYPE,
  bundleFromJSON,
  bundleToJSON,
  envelopeFromJSON,
  toDSSEBundle,
} from "@sigstore/bundle";
import { dsse } from "@sigstore/core";
import {
  CONFIG,
  IN_TOTO_PAYLOAD_TYPE,
  STATEMENT_TYPE,
  TEST_RESULT_PREDICATE,
  type TestResultStatement,
  testResultOf,
  testResultStatement,
} from "../report/in-toto.ts";
import type { Certification, RunResult } from "../result/model.ts";

export const ATTESTATION_FILE = "attestation.intoto.json";
export const SIGSTORE_BUNDLE_FILE = "attestation.sigstore.json";
/** Files the attestation cannot name as its subjects: itself, and what is written after it. */
export const NOT_SUBJECTS = new Set([
  ATTESTATION_FILE,
  SIGSTORE_BUNDLE_FILE,
  "manifest.json",
  "manifest.sig",
]);

const sha256 = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("hex");

/** The DSSE keyid and the bundle's key hint: sha256 of the public key's SPKI DER, in hex. */
export function keyIdOf(key: KeyObject): string {
  const publicKey = key.type === "private" ? createPublicKey(key) : key;
  return sha256(publicKey.export({ type: "spki", format: "der" }));
}

interface Envelope {
  payloadType: string;
  payload: string;
  signatures: { keyid: string; sig: string }[];
}

/** Writes the attestation of the report files now in the folder (call after the reports, before the
 *  manifest). Unsigned without a key (a --certify run without --sign-key): then no bundle is written. */
export function writeAttestation(
  folder: string,
  files: readonly string[],
  result: RunResult,
  targetVersion: Certification["targetVersion"] | undefined,
  signKey?: KeyObject,
): { files: string[]; signed: boolean } {
  const subject = files
    .filter((p) => !NOT_SUBJECTS.has(p))
    .map((path) => ({ path, sha256: sha256(readFileSync(join(folder, path))) }));
  const payload = Buffer.from(JSON.stringify(testResultStatement(result, subject, targetVersion)));
  if (signKey === undefined) {
    const envelope: Envelope = {
      payloadType: IN_TOTO_PAYLOAD_TYPE,
      payload: payload.toString("base64"),
      signatures: [],
    };
    writeFileSync(join(folder, ATTESTATION_FILE), `${JSON.stringify(envelope, null, 2)}\n`);
    return { files: [ATTESTATION_FILE], signed: false };
  }
  const signature = signBytes(null, dsse.preAuthEncoding(IN_TOTO_PAYLOAD_TYPE, payload), signKey);
  const bundle = bundleToJSON(
    toDSSEBundle({
      artifact: payload,
      artifactType: IN_TOTO_PAYLOAD_TYPE,
      signature,
      keyHint: keyIdOf(signKey),
    }),
  );
  writeFileSync(join(folder, ATTESTATION_FILE), `${JSON.stringify(bundle.dsseEnvelope, null, 2)}\n`);
  writeFileSync(join(folder, SIGSTORE_BUNDLE_FILE), `${JSON.stringify(bundle, null, 2)}\n`);
  return { files: [ATTESTATION_FILE, SIGSTORE_BUNDLE_FILE], signed: true };
}

export interface AttestationCheck {
  folder: string;
  /** Every file of the folder (manifest included), as listed. */
  files: readonly string[];
  report: RunResult | undefined;
  /** The key the attestation must be signed with (--public-key, else the manifest's embedded key);
   *  undefined when the manifest is not signed. */
  trusted: KeyObject | undefined;
}

/** Checks attestation.intoto.json (and attestation.sigstore.json) when the folder has one; adds what
 *  is wrong to problems (naming the file) and what held to checked. */
export function verifyAttestation(
  { folder, files, report, trusted }: AttestationCheck,
  problems: string[],
  checked: string[],
): void {
  const path = join(folder, ATTESTATION_FILE);
  if (!existsSync(path)) {
    if (existsSync(join(folder, SIGSTORE_BUNDLE_FILE)))
      problems.push(`${ATTESTATION_FILE}: missing, but ${SIGSTORE_BUNDLE_FILE} is there`);
    else if (report?.certification !== undefined)
      problems.push(`${ATTESTATION_FILE}: missing; a certified run always writes one`);
    return;
  }
  const before = problems.length;
  let envelope: Envelope;
  let payload: Buffer;
  try {
    envelope = JSON.parse(readFileSync(path, "utf8")) as Envelope;
    if (!Array.isArray(envelope.signatures)) throw new Error('no "signatures" list');
    // sigstore-js reads it as the DSSE envelope message: payload and signatures as base64.
    envelopeFromJSON(envelope);
    payload = Buffer.from(envelope.payload, "base64");
  } catch (error) {
    problems.push(`${ATTESTATION_FILE}: not a DSSE envelope (${message(error)})`);
    return;
  }
  if (envelope.payloadType !== IN_TOTO_PAYLOAD_TYPE)
    problems.push(`${ATTESTATION_FILE}: payloadType is ${envelope.payloadType}, not ${IN_TOTO_PAYLOAD_TYPE}`);

  // The signature, over DSSE's pre-authentication encoding of the payload.
  const signed = envelope.signatures.length > 0;
  if (!signed) {
    if (trusted !== undefined)
      problems.push(`${ATTESTATION_FILE}: not signed, but the manifest is (both are signed with --sign-key)`);
  } else if (trusted === undefined)
    problems.push(
      `${ATTESTATION_FILE}: signed, but manifest.json names no public key to check it with (was manifest.sig removed?)`,
    );
  else {
    const pae = dsse.preAuthEncoding(envelope.payloadType, payload);
    const keyid = keyIdOf(trusted);
    const valid = envelope.signatures.filter(
      (s) => s.keyid === keyid && verifySignature(null, pae, trusted, Buffer.from(s.sig, "base64")),
    );
    if (valid.length === 0)
      problems.push(
        `${ATTESTATION_FILE}: no DSSE signature by key ${keyid.slice(0, 16)}… matches (the attestation was changed, or signed with another key)`,
      );
    else checked.push(`${ATTESTATION_FILE}: DSSE signature (Ed25519, keyid ${keyid.slice(0, 16)}…)`);
  }

  let statement: TestResultStatement;
  try {
    statement = JSON.parse(payload.toString("utf8")) as TestResultStatement;
  } catch (error) {
    problems.push(`${ATTESTATION_FILE}: its payload is not JSON (${message(error)})`);
    return;
  }
  if (statement._type !== STATEMENT_TYPE || statement.predicateType !== TEST_RESULT_PREDICATE)
    problems.push(
      `${ATTESTATION_FILE}: not an in-toto Statement v1 with the test-result predicate (_type ${String(statement._type)}, predicateType ${String(statement.predicateType)})`,
    );
  try {
    verifySubjects(folder, files, statement, problems);
    if (report !== undefined) verifyPredicate(statement, report, problems);
  } catch (error) {
    // A statement of another shape (a subject without a name, a configuration that is no list).
    problems.push(`${ATTESTATION_FILE}: not a test-result statement as lckit writes it (${message(error)})`);
  }
  verifyBundle(folder, envelope, signed, problems);
  if (problems.length === before)
    checked.push(
      `${ATTESTATION_FILE}: in-toto test result ${statement.predicate?.result}; its ${statement.subject.length} subjects are the report files by sha256 and it agrees with report.json` +
        (signed
          ? ""
          : " (unsigned: it proves nothing against someone who rewrites it; sign with --sign-key)"),
    );
}

function verifySubjects(
  folder: string,
  files: readonly string[],
  statement: TestResultStatement,
  problems: string[],
): void {
  if (!Array.isArray(statement.subject)) {
    problems.push(`${ATTESTATION_FILE}: no subject list`);
    return;
  }
  const named = new Set<string>();
  for (const s of statement.subject) {
    named.add(s.name);
    const path = join(folder, s.name);
    if (NOT_SUBJECTS.has(s.name) || !files.includes(s.name) || !existsSync(path))
      problems.push(`${ATTESTATION_FILE}: subject ${s.name} is not a report file of this folder`);
    else if (sha256(readFileSync(path)) !== s.digest?.sha256)
      problems.push(`${s.name}: sha256 differs from its subject in ${ATTESTATION_FILE}`);
  }
  for (const file of files)
    if (!NOT_SUBJECTS.has(file) && !named.has(file))
      problems.push(`${file}: not a subject of ${ATTESTATION_FILE} (added after the attestation)`);
}

/** The predicate says what report.json says: the result, the check ids by outcome, the kit, the
 *  catalogue, the contract and the target. */
function verifyPredicate(statement: TestResultStatement, report: RunResult, problems: string[]): void {
  const p = statement.predicate;
  const want = testResultOf(report);
  if (p?.result !== want.result)
    problems.push(
      `${ATTESTATION_FILE}: result ${String(p?.result)}, but report.json's checks and verdict make it ${want.result}`,
    );
  for (const list of ["passedTests", "warnedTests", "failedTests"] as const) {
    const got = Array.isArray(p?.[list]) ? [...p[list]].sort() : [];
    const expected = [...want[list]].sort();
    if (got.join("\n") !== expected.join("\n"))
      problems.push(
        `${ATTESTATION_FILE}: ${list} lists ${got.length} checks, report.json ${expected.length} (${firstDifference(got, expected)})`,
      );
  }
  const config = new Map((p?.configuration ?? []).map((d) => [d.name, d]));
  const expect = (name: string, what: string, got: unknown, wanted: unknown) => {
    if (got !== wanted)
      problems.push(
        `${ATTESTATION_FILE}: configuration "${name}" has ${what} ${String(got)}, report.json ${String(wanted)}`,
      );
  };
  expect(CONFIG.kit, "version", config.get(CONFIG.kit)?.annotations?.version, report.kit.version);
  expect(CONFIG.kit, "runId", config.get(CONFIG.kit)?.annotations?.runId, report.runId);
  expect(
    CONFIG.catalogue,
    "sha256",
    config.get(CONFIG.catalogue)?.digest?.sha256,
    report.spec.catalogue.sha256,
  );
  expect(CONFIG.contract, "sha256", config.get(CONFIG.contract)?.digest?.sha256, report.spec.contract);
  expect(CONFIG.target, "uri", config.get(CONFIG.target)?.uri, report.target?.baseUrl);
  const version = config.get(CONFIG.targetVersion)?.annotations;
  const certified = report.certification?.targetVersion;
  if (certified !== undefined && JSON.stringify(version ?? {}) !== JSON.stringify(certified))
    problems.push(
      `${ATTESTATION_FILE}: configuration "${CONFIG.targetVersion}" is not the /version answer of report.json's certification`,
    );
}

/** attestation.sigstore.json: a Sigstore bundle v0.3 (as sigstore-js validates it) carrying the same
 *  envelope, its key hint the signature's keyid. */
function verifyBundle(folder: string, envelope: Envelope, signed: boolean, problems: string[]): void {
  const path = join(folder, SIGSTORE_BUNDLE_FILE);
  if (!existsSync(path)) {
    if (signed) problems.push(`${SIGSTORE_BUNDLE_FILE}: missing beside the signed ${ATTESTATION_FILE}`);
    return;
  }
  let json: { mediaType?: string; dsseEnvelope?: unknown; verificationMaterial?: unknown };
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
    assertBundle(bundleFromJSON(json));
  } catch (error) {
    problems.push(`${SIGSTORE_BUNDLE_FILE}: not a Sigstore bundle (${message(error)})`);
    return;
  }
  if (json.mediaType !== BUNDLE_V03_MEDIA_TYPE)
    problems.push(`${SIGSTORE_BUNDLE_FILE}: mediaType ${json.mediaType}, not ${BUNDLE_V03_MEDIA_TYPE}`);
  if (JSON.stringify(json.dsseEnvelope) !== JSON.stringify(envelope))
    problems.push(`${SIGSTORE_BUNDLE_FILE}: its DSSE envelope is not the one in ${ATTESTATION_FILE}`);
  const hint = (json.verificationMaterial as { publicKey?: { hint?: string } } | undefined)?.publicKey?.hint;
  if (hint !== envelope.signatures[0]?.keyid)
    problems.push(
      `${SIGSTORE_BUNDLE_FILE}: its public key hint is not the keyid of ${ATTESTATION_FILE}'s signature`,
    );
}

function firstDifference(got: string[], expected: string[]): string {
  const extra = got.find((id) => !expected.includes(id));
  if (extra !== undefined) return `${extra} is not so in report.json`;
  const missing = expected.find((id) => !got.includes(id));
  return missing === undefined ? "order" : `${missing} is missing`;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
