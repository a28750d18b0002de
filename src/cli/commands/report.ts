// lckit report: work on written reports. `diff OLD NEW` says what changed between two runs; `verify DIR`
// checks a report folder's manifest, signature and consistency. Parsing and printing only.

import { createPublicKey } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { renderDiffJson, renderDiffMarkdown } from "../../report/diff.ts";
import type { RunResult } from "../../result/model.ts";
import { diffReports, hasRegressions } from "../../result/run-diff.ts";
import { verifyReport } from "../../session/verify-report.ts";
import { option } from "../argv.ts";
import { defineCommand, defineGroup } from "../command.ts";
import { existingPath, oneOf } from "../flags.ts";
import { type CliIo, UsageError } from "../io.ts";

const diff = defineCommand(
  {
    name: "report diff",
    summary: "what regressed, was fixed, changed level or evidence between two runs",
    positionals: "OLD NEW",
    about: `OLD and NEW are report.json files or report folders. Exit 1 when a check regressed (passed or was
absent before, fails or breaks now).`,
    flags: {
      format: option("F", oneOf(["markdown", "json"]), "markdown or json", { default: "markdown" }),
    },
    notes: "Exit codes: 0 no regression, 1 a check regressed, 2 usage error.",
  },
  ({ values, positionals }, io) => {
    if (positionals.length !== 2)
      throw new UsageError(
        `diff expects two reports, OLD and NEW (report.json files or report folders); got ${positionals.length}`,
      );
    const before = readReport(io, positionals[0] as string);
    const after = readReport(io, positionals[1] as string);
    const result = diffReports(before, after);
    io.out(values.format === "json" ? renderDiffJson(result) : renderDiffMarkdown(result));
    return hasRegressions(result) ? 1 : 0;
  },
);

const verify = defineCommand(
  {
    name: "report verify",
    summary: "check a report folder's manifest, signature and consistency",
    positionals: "DIR",
    about: `Checks a report folder: every file's sha256 against manifest.json, the manifest's signature (Ed25519;
--public-key FILE to require a key you trust, else the embedded one), that report.json, junit.xml and
ctrf.json agree, the in-toto attestation (attestation.intoto.json: its DSSE signature by the same key, its
subjects' sha256, its predicate against report.json; attestation.sigstore.json carrying the same
envelope), and for a certificate that every MUST check of the kit ran.`,
    flags: {
      "public-key": option(
        "FILE",
        existingPath({ example: "vendor.pub.pem", what: "a public key file (PEM)" }),
        "the Ed25519 public key (PEM) the signature must be made with",
        { example: "vendor.pub.pem" },
      ),
      format: option("F", oneOf(["text", "json"]), "text or json", { default: "text" }),
    },
    notes: "Exit codes: 0 verified, 1 not verified, 2 usage error.",
  },
  async ({ values, positionals }, io) => {
    if (positionals.length !== 1)
      throw new UsageError(`verify expects one report folder (reports/<run id>); got ${positionals.length}`);
    const folder = resolve(io.cwd, positionals[0] as string);
    if (!existsSync(folder) || !statSync(folder).isDirectory())
      throw new UsageError(`${positionals[0]}: not a folder; give the report folder (reports/<run id>)`);
    let publicKey: string | undefined;
    if (values["public-key"] !== undefined) {
      const keyFile = resolve(io.cwd, values["public-key"]);
      try {
        publicKey = readFileSync(keyFile, "utf8");
        createPublicKey(publicKey);
      } catch (error) {
        throw new UsageError(
          `--public-key ${values["public-key"]}: not a readable PEM public key (${error instanceof Error ? error.message : String(error)}); ` +
            "export one with: openssl pkey -in lckit-sign.pem -pubout -out lckit-sign.pub.pem",
        );
      }
    }
    const result = await verifyReport({
      folder,
      ...(publicKey === undefined ? {} : { publicKey }),
      cwd: io.cwd,
      env: io.env,
    });
    if (values.format === "json") io.out(`${JSON.stringify(result, null, 2)}\n`);
    else {
      for (const line of result.checked) io.out(`ok   ${line}\n`);
      for (const line of result.problems) io.out(`FAIL ${line}\n`);
      if (result.ok && !result.signed)
        io.out(
          "note: the manifest is not signed; its hashes prove nothing against someone who rewrites it too\n",
        );
      io.out(`${result.ok ? "verified" : "NOT VERIFIED"}: ${positionals[0]}\n`);
    }
    return result.ok ? 0 : 1;
  },
);

export const command = defineGroup(
  {
    name: "report",
    summary: "compare two reports (diff) or verify a report folder's manifest and signature (verify)",
    notes: "Exit codes: 0 fine, 1 regression / verification failed, 2 usage error.",
  },
  [diff, verify],
);

/** A report.json file, or a folder holding one: a usage error names what is wrong with it. */
export function readReport(io: CliIo, given: string): RunResult {
  let file = resolve(io.cwd, given);
  if (existsSync(file) && statSync(file).isDirectory()) file = join(file, "report.json");
  if (!existsSync(file))
    throw new UsageError(`${given}: no such report (expected a report.json file or a folder holding one)`);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new UsageError(`${given}: not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const r = data as Partial<RunResult>;
  if (typeof r !== "object" || r === null || !Array.isArray(r.checks) || typeof r.verdict !== "string")
    throw new UsageError(`${given}: not an lckit report.json (expected "checks" and "verdict")`);
  return r as RunResult;
}
