#!/usr/bin/env node
// Verifies the attestation of an lckit report folder with sigstore-js alone (no code of the kit): the
// Sigstore bundle attestation.sigstore.json, its DSSE signature by the Ed25519 public key you trust, no
// transparency log; then the in-toto statement's type and every subject's sha256 against the files.
//
//   npm install @sigstore/verify@3
//   node verify-attestation.mjs reports/<run id> vendor.pub.pem
//
// Prints the test result (PASSED, WARNED or FAILED) and exits 0 when everything holds, 1 otherwise.
import { createHash, createPublicKey } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { bundleFromJSON } from "@sigstore/bundle";
import { toSignedEntity, Verifier } from "@sigstore/verify";

const [folder, keyFile] = process.argv.slice(2);
if (folder === undefined || keyFile === undefined) {
  console.error("usage: node verify-attestation.mjs REPORT_DIR PUBLIC_KEY.pem");
  process.exit(2);
}

const publicKey = createPublicKey(readFileSync(keyFile));
const bundle = bundleFromJSON(JSON.parse(readFileSync(join(folder, "attestation.sigstore.json"), "utf8")));
// The trusted key, whatever hint the bundle names: a bundle signed by another key fails the signature.
const trust = {
  certificateAuthorities: [],
  timestampAuthorities: [],
  tlogs: [],
  ctlogs: [],
  publicKey: () => ({ publicKey, validFor: () => true }),
};
const verifier = new Verifier(trust, { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 });
try {
  verifier.verify(toSignedEntity(bundle));
} catch (error) {
  console.error(`attestation NOT VERIFIED: ${error.message}`);
  process.exit(1);
}

const envelope = bundle.content.dsseEnvelope;
const statement = JSON.parse(Buffer.from(envelope.payload).toString("utf8"));
const problems = [];
if (envelope.payloadType !== "application/vnd.in-toto+json")
  problems.push(`payloadType ${envelope.payloadType}`);
if (statement._type !== "https://in-toto.io/Statement/v1") problems.push(`_type ${statement._type}`);
if (statement.predicateType !== "https://in-toto.io/attestation/test-result/v0.1")
  problems.push(`predicateType ${statement.predicateType}`);
for (const subject of statement.subject) {
  let digest;
  try {
    digest = createHash("sha256")
      .update(readFileSync(join(folder, subject.name)))
      .digest("hex");
  } catch {
    digest = "missing";
  }
  if (digest !== subject.digest.sha256) problems.push(`${subject.name}: sha256 differs from the attestation`);
}
if (problems.length > 0) {
  console.error(`attestation NOT VERIFIED:\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
const p = statement.predicate;
console.log(
  `attestation verified: ${p.result} (${p.passedTests.length} passed, ${p.warnedTests.length} warned, ` +
    `${p.failedTests.length} failed); ${statement.subject.length} report files by sha256`,
);
