// lckit run --attest, end to end on a real run of the embedded reference with a MUST and a SHOULD fault:
// an in-toto Statement v1 with the test-result predicate (FAILED; the failed and warned checks by id; the
// kit, catalogue, contract and target with its /version answer), its subject the report files by sha256,
// in a DSSE envelope signed with --sign-key and in a Sigstore bundle. sigstore-js (code the kit did not
// write) verifies the bundle with the public key and no transparency log, and refuses a changed one; so
// does the documented example script. lckit report verify accepts it and refuses a changed attestation,
// bundle or ctrf.json, an attestation signed by another key, and one that says other than report.json.

import { execFileSync, spawnSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleFromJSON } from "@sigstore/bundle";
import { toSignedEntity, Verifier } from "@sigstore/verify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { writeAttestation } from "../../src/report-folder/attestation.ts";
import { listFiles, loadSignKey, writeManifest } from "../../src/report-folder/manifest.ts";
import type { RunResult } from "../../src/result/model.ts";
import { captureIo } from "../cli/capture-io.ts";

const dir = mkdtempSync(join(tmpdir(), "lckit-attest-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const root = new URL("../..", import.meta.url).pathname;

async function lckit(argv: string[]) {
  const io = captureIo();
  io.cwd = dir;
  const code = await main(argv, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

function keyPair(name: string) {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  writeFileSync(join(dir, `${name}.pem`), privateKey.export({ type: "pkcs8", format: "pem" }));
  writeFileSync(join(dir, `${name}.pub.pem`), publicKey.export({ type: "spki", format: "pem" }));
  return publicKey;
}

interface Statement {
  _type: string;
  subject: { name: string; digest: { sha256: string } }[];
  predicateType: string;
  predicate: {
    result: string;
    configuration: {
      name: string;
      uri?: string;
      digest?: { sha256: string };
      annotations?: Record<string, unknown>;
    }[];
    passedTests: string[];
    warnedTests: string[];
    failedTests: string[];
  };
}

const read = (f: string, name: string) => readFileSync(join(f, name), "utf8");
const statementOf = (f: string) =>
  JSON.parse(
    Buffer.from(JSON.parse(read(f, "attestation.intoto.json")).payload, "base64").toString(),
  ) as Statement;

let folder: string;
let run: { code: number; err: string };
let vendorKey: ReturnType<typeof keyPair>;
let otherKey: ReturnType<typeof keyPair>;
beforeAll(async () => {
  vendorKey = keyPair("vendor");
  otherKey = keyPair("someone-else");
  const reportDir = join(dir, "attested");
  run = await lckit([
    "run",
    "--attest",
    "--sign-key",
    "vendor.pem",
    "--fault",
    "version-not-dotted",
    "--fault",
    "quota-0-accepted",
    "--runs",
    "2",
    "--seed",
    "3",
    "--report-dir",
    reportDir,
  ]);
  folder = join(reportDir, readdirSync(reportDir)[0] as string);
}, 120_000);

let copies = 0;
function copy(): string {
  const to = join(dir, `copy-${++copies}`);
  cpSync(folder, to, { recursive: true });
  return to;
}

/** sigstore-js's verifier trusting one public key, no transparency log, no timestamps. */
function sigstoreVerify(bundleFile: string, key: typeof vendorKey) {
  const bundle = bundleFromJSON(JSON.parse(readFileSync(bundleFile, "utf8")));
  const trust = {
    certificateAuthorities: [],
    timestampAuthorities: [],
    tlogs: [],
    ctlogs: [],
    publicKey: () => ({ publicKey: key, validFor: () => true }),
  };
  return new Verifier(trust, { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 }).verify(
    toSignedEntity(bundle),
  );
}

describe("lckit run --attest", () => {
  it("writes the attestation and the bundle beside the reports, all in the manifest", () => {
    expect(run.code, run.err).toBe(1);
    expect(readdirSync(folder).sort()).toEqual([
      "attestation.intoto.json",
      "attestation.sigstore.json",
      "ctrf.json",
      "junit.xml",
      "manifest.json",
      "manifest.sig",
      "report.html",
      "report.json",
      "summary.md",
    ]);
    const manifest = JSON.parse(read(folder, "manifest.json")) as { files: { path: string }[] };
    expect(manifest.files.map((f) => f.path)).toEqual(
      expect.arrayContaining(["attestation.intoto.json", "attestation.sigstore.json", "ctrf.json"]),
    );
  });

  it("is an in-toto Statement v1 with the test-result predicate: result, checks by id, configuration", () => {
    const report = JSON.parse(read(folder, "report.json")) as RunResult;
    const envelope = JSON.parse(read(folder, "attestation.intoto.json"));
    expect(envelope.payloadType).toBe("application/vnd.in-toto+json");
    expect(envelope.signatures).toHaveLength(1);
    const s = statementOf(folder);
    expect(s._type).toBe("https://in-toto.io/Statement/v1");
    expect(s.predicateType).toBe("https://in-toto.io/attestation/test-result/v0.1");
    expect(s.predicate.result).toBe("FAILED");
    expect(s.predicate.failedTests).toEqual(["service/version-dotted"]);
    expect(s.predicate.warnedTests).toEqual(expect.arrayContaining(["token-quota/max-below-1-refused"]));
    expect(s.predicate.passedTests).toHaveLength(report.checks.filter((c) => c.status === "passed").length);
    const config = new Map(s.predicate.configuration.map((d) => [d.name, d]));
    expect(config.get("kit")?.annotations?.version).toBe(report.kit.version);
    expect(config.get("requirements/catalogue.yaml")?.digest?.sha256).toBe(report.spec.catalogue.sha256);
    expect(config.get("contract")?.digest?.sha256).toBe(report.spec.contract);
    expect(report.target?.baseUrl).toMatch(/^http/);
    expect(config.get("target")?.uri).toBe(report.target?.baseUrl);
    expect(config.get("target /version")?.annotations).toEqual({
      status: 200,
      body: '{"rdm-service":"2026-1"}',
    });
    // Its subject: every report file by sha256, none of the files written after it.
    expect(s.subject.map((x) => x.name).sort()).toEqual([
      "ctrf.json",
      "junit.xml",
      "report.html",
      "report.json",
      "summary.md",
    ]);
    const manifest = JSON.parse(read(folder, "manifest.json")) as {
      files: { path: string; sha256: string }[];
    };
    for (const x of s.subject)
      expect(x.digest.sha256).toBe(manifest.files.find((f) => f.path === x.name)?.sha256);
  });

  it("sigstore-js verifies the bundle with the vendor's public key and no transparency log", () => {
    const signer = sigstoreVerify(join(folder, "attestation.sigstore.json"), vendorKey);
    expect(signer.key.export({ format: "jwk" })).toEqual(vendorKey.export({ format: "jwk" }));
  });

  it("sigstore-js refuses the bundle under another key, and a bundle whose statement was changed", () => {
    expect(() => sigstoreVerify(join(folder, "attestation.sigstore.json"), otherKey)).toThrow(
      /signature verification failed/,
    );
    const bundle = JSON.parse(read(folder, "attestation.sigstore.json"));
    const statement = statementOf(folder);
    statement.predicate.result = "PASSED";
    bundle.dsseEnvelope.payload = Buffer.from(JSON.stringify(statement)).toString("base64");
    const changed = join(dir, "changed.sigstore.json");
    writeFileSync(changed, JSON.stringify(bundle));
    expect(() => sigstoreVerify(changed, vendorKey)).toThrow(/signature verification failed/);
  });

  it("the documented example script (sigstore-js only) verifies it, and refuses a changed report file", () => {
    const script = join(root, "examples", "verify-attestation.mjs");
    const ok = spawnSync(process.execPath, [script, folder, join(dir, "vendor.pub.pem")], {
      encoding: "utf8",
    });
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(
      /^attestation verified: FAILED \(\d+ passed, 3 warned, 1 failed\); 5 report files/,
    );
    const spoilt = copy();
    writeFileSync(join(spoilt, "summary.md"), `${read(spoilt, "summary.md")}\n`);
    const bad = spawnSync(process.execPath, [script, spoilt, join(dir, "vendor.pub.pem")], {
      encoding: "utf8",
    });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/summary\.md: sha256 differs from the attestation/);
    const otherSigner = spawnSync(process.execPath, [script, folder, join(dir, "someone-else.pub.pem")], {
      encoding: "utf8",
    });
    expect(otherSigner.status).toBe(1);
    expect(otherSigner.stderr).toMatch(/NOT VERIFIED: signature verification failed/);
  });

  it("lckit report verify checks it", async () => {
    const { code, out } = await lckit(["report", "verify", folder, "--public-key", "vendor.pub.pem"]);
    expect(code, out).toBe(0);
    expect(out).toMatch(/^ok {3}report\.json and ctrf\.json agree on \d+ checks$/m);
    expect(out).toMatch(
      /^ok {3}attestation\.intoto\.json: DSSE signature \(Ed25519, keyid [0-9a-f]{16}…\)$/m,
    );
    expect(out).toMatch(
      /^ok {3}attestation\.intoto\.json: in-toto test result FAILED; its 5 subjects are the report files by sha256 and it agrees with report\.json$/m,
    );
  });

  it.each(["attestation.intoto.json", "attestation.sigstore.json", "ctrf.json"])(
    "one changed byte in %s fails verification, naming the file",
    async (name) => {
      const spoilt = copy();
      const bytes = readFileSync(join(spoilt, name));
      const at = Math.floor(bytes.length / 2);
      bytes[at] = (bytes[at] as number) ^ 0x01;
      writeFileSync(join(spoilt, name), bytes);
      const { code, out } = await lckit(["report", "verify", spoilt, "--public-key", "vendor.pub.pem"]);
      expect(code).toBe(1);
      expect(out).toMatch(
        new RegExp(`^FAIL ${name.replace(/\./g, "\\.")}: sha256 differs from manifest\\.json`, "m"),
      );
    },
  );

  it("a statement rewritten to PASSED under a manifest re-signed with another key is refused", async () => {
    const spoilt = copy();
    const envelope = JSON.parse(read(spoilt, "attestation.intoto.json"));
    const statement = statementOf(spoilt);
    statement.predicate.result = "PASSED";
    statement.predicate.failedTests = [];
    envelope.payload = Buffer.from(JSON.stringify(statement)).toString("base64");
    writeFileSync(join(spoilt, "attestation.intoto.json"), `${JSON.stringify(envelope, null, 2)}\n`);
    writeManifest(spoilt, "forged", loadSignKey(join(dir, "someone-else.pem")));
    for (const trusted of [["--public-key", "vendor.pub.pem"], []]) {
      const { code, out } = await lckit(["report", "verify", spoilt, ...trusted]);
      expect(code).toBe(1);
      expect(out).toMatch(/^FAIL attestation\.intoto\.json: no DSSE signature by key [0-9a-f]{16}… matches/m);
      expect(out).toMatch(
        /^FAIL attestation\.intoto\.json: result PASSED, but report\.json's checks and verdict make it FAILED$/m,
      );
    }
  });

  it("an attestation signed by the vendor's key that says other than report.json is refused", async () => {
    const spoilt = copy();
    const report = JSON.parse(read(spoilt, "report.json")) as RunResult;
    const claimed: RunResult = {
      ...report,
      verdict: "CONFORMANT",
      checks: report.checks.map((c) => ({ ...c, status: "passed" })),
    };
    const key = loadSignKey(join(dir, "vendor.pem"));
    writeAttestation(spoilt, listFiles(spoilt), claimed, { status: 200 }, key);
    writeManifest(spoilt, report.runId, key);
    const { code, out } = await lckit([
      "report",
      "verify",
      spoilt,
      "--public-key",
      "vendor.pub.pem",
      "--format",
      "json",
    ]);
    expect(code).toBe(1);
    const result = JSON.parse(out) as { problems: string[] };
    expect(result.problems).toEqual(
      expect.arrayContaining([
        "attestation.intoto.json: result PASSED, but report.json's checks and verdict make it FAILED",
        expect.stringMatching(
          /^attestation\.intoto\.json: failedTests lists 0 checks, report\.json 1 \(service\/version-dotted is missing\)$/,
        ),
      ]),
    );
  });

  it("a ctrf.json that disagrees with report.json is refused even when everything is re-signed", async () => {
    const spoilt = copy();
    const ctrf = JSON.parse(read(spoilt, "ctrf.json"));
    const test = ctrf.results.tests.find((t: { name: string }) => t.name === "service/version-dotted");
    test.status = "passed";
    ctrf.results.summary.failed -= 1;
    ctrf.results.summary.passed += 1;
    writeFileSync(join(spoilt, "ctrf.json"), JSON.stringify(ctrf));
    const key = loadSignKey(join(dir, "vendor.pem"));
    const report = JSON.parse(read(spoilt, "report.json")) as RunResult;
    writeAttestation(
      spoilt,
      listFiles(spoilt),
      report,
      { status: 200, body: '{"rdm-service":"2026-1"}' },
      key,
    );
    writeManifest(spoilt, report.runId, key);
    const { code, out } = await lckit(["report", "verify", spoilt, "--format", "json"]);
    expect(code).toBe(1);
    expect((JSON.parse(out) as { problems: string[] }).problems).toEqual([
      "ctrf.json: check service/version-dotted is passed there but failed (MUST) in report.json",
    ]);
  });

  it("--attest without --sign-key is a usage error naming the fix", async () => {
    const { code, err } = await lckit(["run", "--attest"]);
    expect(code).toBe(2);
    expect(err).toMatch(/--attest signs the attestation with --sign-key; add --sign-key FILE/);
  });

  it("openssl (a third implementation) verifies the DSSE signature over the pre-authentication encoding", () => {
    const envelope = JSON.parse(read(folder, "attestation.intoto.json"));
    const payload = Buffer.from(envelope.payload, "base64");
    const type = envelope.payloadType as string;
    // DSSE v1 PAE, written out here from the DSSE specification rather than taken from a library.
    writeFileSync(
      join(dir, "pae.bin"),
      Buffer.concat([Buffer.from(`DSSEv1 ${Buffer.byteLength(type)} ${type} ${payload.length} `), payload]),
    );
    writeFileSync(join(dir, "sig.bin"), Buffer.from(envelope.signatures[0].sig, "base64"));
    const verify = (key: string) =>
      spawnSync(
        "openssl",
        ["pkeyutl", "-verify", "-pubin", "-inkey", key, "-rawin", "-in", "pae.bin", "-sigfile", "sig.bin"],
        { cwd: dir, encoding: "utf8" },
      );
    const good = verify("vendor.pub.pem");
    expect(good.error, "openssl is needed: apt-get install openssl").toBeUndefined();
    expect(good.stdout).toMatch(/Signature Verified Successfully/);
    expect(verify("someone-else.pub.pem").stdout).toMatch(/Signature Verification Failure/);
    expect(execFileSync("sha256sum", ["report.json"], { cwd: folder, encoding: "utf8" }).split(" ")[0]).toBe(
      statementOf(folder).subject.find((x) => x.name === "report.json")?.digest.sha256,
    );
  });
});
