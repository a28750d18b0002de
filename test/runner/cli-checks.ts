// Checks for the CLI tests (loaded through LCKIT_CHECKS_MODULE): one per outcome, against the embedded reference.
import type { Check, CheckContext } from "../../src/check/index.ts";
import { fail } from "../../src/check/index.ts";
import { check } from "./fake-target.ts";

async function health(ctx: CheckContext): Promise<void> {
  const token = await ctx.token("viewer");
  const res = await ctx.fetch(`${ctx.target.rdmUrl}/healthcheck`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await res.json()) as { status?: string };
  if (body.status !== "OK") fail(`expected {"status":"OK"}, got ${JSON.stringify(body)}`);
}

export const allChecks: Check[] = [
  check("sample/health", health, { needs: { roles: ["viewer"] } }),
  check("sample/should-fail", async () => fail("a SHOULD finding"), { level: "SHOULD" }),
  check("sample/must-fail", async () => fail("a MUST finding")),
  check("sample/broken", async () => {
    throw new RangeError("a fault of the kit");
  }),
  check("sample/writes", async () => {}, { safety: "write", needs: { roles: ["admin"] } }),
];
