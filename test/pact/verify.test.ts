// Provider verification of the committed pacts: the reference honours every interaction; each seeded fault
// breaks exactly the interactions that observe it; a live target from a target file verifies too.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPactFiles } from "../../src/pact/pact-file.ts";
import { PactConfigError, verifyPacts } from "../../src/pact/verify.ts";
import type { FaultName } from "../../src/reference/index.ts";
import { embeddedTargetDescription } from "../../src/target/embedded.ts";
import { loadTargetFile } from "../../src/target/target-file.ts";
import { pactDir, repositoryRoot } from "./consumer-pact.ts";
import { type LiveTarget, startLiveTarget } from "./live-target.ts";

process.env.PACT_DO_NOT_TRACK = "true";

const cwd = repositoryRoot;
const pactFiles = findPactFiles([pactDir], cwd);
const failed = (report: Awaited<ReturnType<typeof verifyPacts>>) =>
  report.interactions.filter((i) => !i.ok).map((i) => i.description);

describe("pact verification against the embedded reference", () => {
  it("verifies every interaction of every committed pact", async () => {
    const report = await verifyPacts({ pactFiles, cwd });
    expect(report.problems).toEqual([]);
    expect(failed(report)).toEqual([]);
    expect(report.interactions.length).toBeGreaterThanOrEqual(22);
    expect(report.ok).toBe(true);
  });

  it.each<[FaultName, string[]]>([
    ["version-not-dotted", ["a version request"]],
    ["healthcheck-not-ok", ["a healthcheck request"]],
    ["token-error-not-json", ["a token request from a client at its token quota"]],
    [
      "autopilot-type-scan-returns-other-types",
      ["a request for the autopilot statistics of lookup type Country, last first"],
    ],
    ["missing-auth-accepted", ["a version request without an access token"]],
  ])("fails with fault %s, in exactly the interactions that observe it", async (fault, interactions) => {
    const report = await verifyPacts({ pactFiles, cwd, faults: [fault] });
    expect(report.ok).toBe(false);
    expect(failed(report)).toEqual(interactions);
    expect(report.interactions.find((i) => !i.ok)?.mismatches.length).toBeGreaterThan(0);
  });
});

describe("pact verification against a live target", () => {
  let live: LiveTarget;
  beforeAll(async () => {
    live = await startLiveTarget();
  });
  afterAll(() => live.close());

  it("verifies every pact through the target file's URLs and credentials", async () => {
    const target = loadTargetFile(live.file, live.env);
    expect(target.target.baseUrl).not.toBe(target.target.rdmUrl);
    const report = await verifyPacts({ pactFiles, cwd, target });
    expect(report.problems).toEqual([]);
    expect(failed(report)).toEqual([]);
    expect(report.ok).toBe(true);
    // Real credentials reached the target: the probe lookup was deleted by the delete-task interaction.
    await expect
      .poll(() => live.reference.state.lookups.get("acme")?.get("rdm/lookupTypes/Gender", "PACT-PROBE"))
      .toBeUndefined();
  });

  it.each([
    ["a remote target", { baseUrl: "https://rdm.example.invalid", loopback: false }],
    // A port-forward to production is on 127.0.0.1 too: loopback alone is no permission.
    ["a loopback target not marked disposable", {}],
  ])("refuses interactions that write or delete on %s", async (_name, override) => {
    const remote = {
      ...loadTargetFile(live.file, live.env),
      allow: [],
    };
    remote.target = { ...remote.target, ...override, disposable: false };
    await expect(verifyPacts({ pactFiles, cwd, target: remote })).rejects.toThrow(
      /not marked disposable[\s\S]*needs allow: \[write\][\s\S]*needs allow: \[destructive\] and confirmTenant: acme/,
    );
  });
});

describe("pact verification of unusable pacts", () => {
  const dir = mkdtempSync(join(tmpdir(), "lckit-pact-bad-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const source = JSON.parse(
    readFileSync(join(pactDir, "lookup-consumer-lookup-data-interface.json"), "utf8"),
  );

  it("reports a provider state the kit does not know, naming the pact and the interaction", async () => {
    const pact = structuredClone(source);
    pact.interactions = pact.interactions.slice(0, 1);
    pact.interactions[0].providerStates = [{ name: "tenant acme is on fire" }];
    const file = join(dir, "unknown-state.json");
    writeFileSync(file, JSON.stringify(pact));
    const report = await verifyPacts({ pactFiles: [file], cwd });
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([
      expect.objectContaining({ source: "tenant acme is on fire", message: expect.stringContaining(file) }),
    ]);
  });

  it.each([
    ["a pact of another provider", { ...source, provider: { name: "billing" } }, /provider "billing"/],
    ["a pact without interactions", { ...source, interactions: [] }, /no interactions/],
  ])("refuses %s as a configuration error", async (name, pact, message) => {
    const file = join(dir, `${name.replaceAll(" ", "-")}.json`);
    writeFileSync(file, JSON.stringify(pact));
    const error = await verifyPacts({ pactFiles: [file], cwd }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PactConfigError);
    expect(String(error)).toMatch(message);
  });

  it("refuses faults together with a live target", async () => {
    const target = { ...embeddedTargetDescription(), name: "x" };
    const config = { target, allow: [], rateLimit: 0, file: "target.yaml" };
    await expect(
      verifyPacts({ pactFiles, cwd, target: config, faults: ["healthcheck-not-ok"] }),
    ).rejects.toThrow(PactConfigError);
  });
});
