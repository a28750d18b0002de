// Certified mode and verification, end to end on real runs: a signed certificate of the embedded
// reference verifies (CERTIFIED in all four formats); one changed byte in any file of the folder fails
// verification naming that file; another key, an added file, a report and JUnit file that disagree, a
// certificate missing a MUST check are each refused; a live target whose MUST checks cannot run gets no
// certificate, each missing check with the key that makes it run; --certify refuses a selection.
import { generateKeyPairSync } from "node:crypto";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { createReference } from "../../src/reference/index.ts";
import { renderCtrf } from "../../src/report/ctrf.ts";
import { writeAttestation } from "../../src/report-folder/attestation.ts";
import { listFiles, writeManifest } from "../../src/report-folder/manifest.ts";
import type { RunResult } from "../../src/result/model.ts";
import { captureIo } from "../cli/capture-io.ts";
import { reportValidator } from "./report-schema.ts";

const dir = mkdtempSync(join(tmpdir(), "lckit-certify-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const validate = reportValidator();

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
}

let folder: string;
let run: { code: number; err: string };
beforeAll(async () => {
  keyPair("vendor");
  keyPair("someone-else");
  const reportDir = join(dir, "certified");
  run = await lckit([
    "run",
    "--certify",
    "--runs",
    "2",
    "--seed",
    "3",
    "--sign-key",
    "vendor.pem",
    "--report-dir",
    reportDir,
  ]);
  folder = join(reportDir, readdirSync(reportDir)[0] as string);
}, 120_000);

const read = (f: string, name: string) => readFileSync(join(f, name), "utf8");

/** A copy of the certified folder to spoil. */
let copies = 0;
function copy(): string {
  const to = join(dir, `copy-${++copies}`);
  cpSync(folder, to, { recursive: true });
  return to;
}

describe("lckit run --certify", () => {
  it("certifies the embedded reference: CERTIFIED in every format, with what was certified", () => {
    expect(run.code, run.err).toBe(0);
    const result = JSON.parse(read(folder, "report.json")) as RunResult;
    expect(result.verdict).toBe("CERTIFIED");
    expect(validate(result), JSON.stringify(validate.errors)).toBe(true);
    const c = result.certification;
    expect(c).toMatchObject({ certified: true, missing: [], seed: 3, runs: 2, target: "embedded reference" });
    expect(c?.kitVersion).toBe(result.kit.version);
    expect(c?.catalogueSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(c?.contractSha256).toBe(result.spec.contract);
    expect(c?.targetVersion.status).toBe(200);
    expect(c?.targetVersion.body).toMatch(/"rdm-service"/);
    expect(c?.profile).toHaveProperty("scrollIdEncoding");
    expect(read(folder, "junit.xml")).toMatch(/<property name="verdict" value="CERTIFIED"\/>/);
    expect(read(folder, "summary.md")).toMatch(/^## 🏅 CERTIFIED/);
    expect(read(folder, "summary.md")).toMatch(/\*\*Certificate granted\*\*/);
    expect(read(folder, "report.html")).toMatch(/<h1>CERTIFIED<\/h1>/);
    expect(readdirSync(folder).sort()).toEqual([
      "attestation.intoto.json",
      "attestation.sigstore.json",
      "ctrf.json",
      "evidence.har.gz",
      "junit.xml",
      "manifest.json",
      "manifest.sig",
      "report.html",
      "report.json",
      "summary.md",
    ]);
  });

  it("the certificate verifies, with the vendor's public key and with the embedded one", async () => {
    const given = await lckit(["report", "verify", folder, "--public-key", "vendor.pub.pem"]);
    expect(given.code, given.out).toBe(0);
    expect(given.out).toMatch(/ok {3}signature: Ed25519 over manifest\.json by the given public key/);
    expect(given.out).toMatch(/ok {3}certificate: all \d+ MUST checks of kit .* ran and passed/);
    // A certified run always attests: signed with --sign-key, PASSED, evidence.har among its subjects.
    expect(given.out).toMatch(/ok {3}attestation\.intoto\.json: DSSE signature/);
    expect(given.out).toMatch(/ok {3}attestation\.intoto\.json: in-toto test result PASSED; its 6 subjects/);
    expect(given.out).toMatch(/^verified: /m);
    expect((await lckit(["report", "verify", folder])).code).toBe(0);
  });

  it.each([
    "report.json",
    "junit.xml",
    "ctrf.json",
    "attestation.intoto.json",
    "attestation.sigstore.json",
    "summary.md",
    "report.html",
    "evidence.har.gz",
    "manifest.json",
    "manifest.sig",
  ])("one changed byte in %s fails verification, naming the file", async (name) => {
    const spoilt = copy();
    const bytes = readFileSync(join(spoilt, name));
    const at = Math.floor(bytes.length / 2);
    bytes[at] = (bytes[at] as number) ^ 0x01;
    writeFileSync(join(spoilt, name), bytes);
    const { code, out } = await lckit(["report", "verify", spoilt, "--public-key", "vendor.pub.pem"]);
    expect(code).toBe(1);
    expect(out).toMatch(/NOT VERIFIED/);
    expect(out).toMatch(new RegExp(`^FAIL .*${name.replace(".", "\\.")}`, "m"));
  });

  it("a signature by another key than the trusted one is refused", async () => {
    const { code, out } = await lckit(["report", "verify", folder, "--public-key", "someone-else.pub.pem"]);
    expect(code).toBe(1);
    expect(out).toMatch(/FAIL manifest\.json: signed with another key/);
  });

  it("a file added after the run is named", async () => {
    const spoilt = copy();
    writeFileSync(join(spoilt, "extra.txt"), "hello");
    const { code, out } = await lckit(["report", "verify", spoilt]);
    expect(code).toBe(1);
    expect(out).toMatch(/FAIL extra\.txt: not in manifest\.json/);
  });

  it("a report and JUnit file that disagree are refused even under a freshly written manifest", async () => {
    const spoilt = copy();
    rmSync(join(spoilt, "manifest.sig"));
    const junit = read(spoilt, "junit.xml").replace(
      /(<testcase name="service\/version-dotted"[^>]*?)\/>/,
      '$1><failure message="x" type="MUST">x</failure></testcase>',
    );
    writeFileSync(join(spoilt, "junit.xml"), junit);
    writeManifest(spoilt, "x");
    const { code, out } = await lckit(["report", "verify", spoilt]);
    expect(code).toBe(1);
    expect(out).toMatch(
      /FAIL junit\.xml: check service\/version-dotted is failure there but passed \(MUST\)/,
    );
  });

  it("a certificate missing a MUST check is refused even when report, JUnit, CTRF and attestation agree", async () => {
    const spoilt = copy();
    rmSync(join(spoilt, "manifest.sig"));
    rmSync(join(spoilt, "attestation.sigstore.json"));
    const result = JSON.parse(read(spoilt, "report.json")) as RunResult;
    result.checks = result.checks.filter((c) => c.id !== "service/version-dotted");
    writeFileSync(join(spoilt, "report.json"), JSON.stringify(result));
    writeFileSync(
      join(spoilt, "junit.xml"),
      read(spoilt, "junit.xml").replace(/<testcase name="service\/version-dotted"[^>]*?\/>/, ""),
    );
    writeFileSync(join(spoilt, "ctrf.json"), renderCtrf(result));
    rmSync(join(spoilt, "attestation.intoto.json"));
    writeAttestation(spoilt, listFiles(spoilt), result, result.certification?.targetVersion);
    writeManifest(spoilt, "x");
    const { code, out } = await lckit(["report", "verify", spoilt, "--format", "json"]);
    expect(code).toBe(1);
    const verdict = JSON.parse(out) as { problems: string[] };
    expect(verdict.problems).toEqual([
      expect.stringMatching(
        /report\.json: a certificate, but 1 MUST checks of kit .* did not run and pass \(service\/version-dotted\)/,
      ),
    ]);
  });

  it("refuses a selection (exit 2)", async () => {
    const { code, err } = await lckit(["run", "--certify", "--check", "service/*"]);
    expect(code).toBe(2);
    expect(err).toMatch(
      /--certify runs every check of the kit; it refuses a selection \(got --check service\/\*\)/,
    );
  });

  it("a live target whose MUST checks cannot run gets no certificate; each says what makes it run", async () => {
    const reference = createReference();
    const server = await reference.listen({ port: 0 });
    try {
      writeFileSync(
        join(dir, "no-credentials.yaml"),
        `name: reference without credentials\nbaseUrl: ${server.baseUrl}\nrdmUrl: ${server.rdmUrl}\ntenant: acme\n`,
      );
      const reportDir = join(dir, "refused");
      const { code, err } = await lckit([
        "run",
        "--certify",
        "--target",
        "no-credentials.yaml",
        "--runs",
        "2",
        "--report-dir",
        reportDir,
      ]);
      expect(code, err).toBe(0);
      expect(err).toMatch(/no certificate: \d+ MUST checks of the kit did not run/);
      const refused = join(reportDir, readdirSync(reportDir)[0] as string);
      const result = JSON.parse(read(refused, "report.json")) as RunResult;
      // Without --sign-key the attestation is written unsigned (no bundle), said on stderr and by verify.
      expect(err).toMatch(/attestation\.intoto\.json is not signed; add --sign-key FILE/);
      expect(JSON.parse(read(refused, "attestation.intoto.json")).signatures).toEqual([]);
      expect(readdirSync(refused)).not.toContain("attestation.sigstore.json");
      const verified = await lckit(["report", "verify", refused]);
      expect(verified.code, verified.out).toBe(0);
      expect(verified.out).toMatch(
        /ok {3}attestation\.intoto\.json: in-toto test result WARNED; .*\(unsigned: it proves nothing/,
      );
      expect(result.verdict).not.toBe("CERTIFIED");
      expect(result.certification?.certified).toBe(false);
      const missing = result.certification?.missing ?? [];
      expect(missing.length).toBeGreaterThan(0);
      expect(missing.find((m) => m.id === "service/version-dotted")?.fix).toBe(
        "add credentials.viewer to the target file",
      );
      expect(validate(result), JSON.stringify(validate.errors)).toBe(true);
    } finally {
      await server.close();
    }
  }, 60_000);
});
