// A hostile target knows the tokens it issued and may echo one beside input built to slow the redactor
// down: long runs of backslashes (each was a fresh start for every secret form that opens with a
// backslash: quadratic, 30 s for a 272 KB body) or thousands of cut marks after a token's head (the text
// was rebuilt for each mark). The redactor must still hide every form, and finish: these inputs took the
// old code minutes; vitest's timeout guards a hang, no timing is asserted.
import { describe, expect, it } from "vitest";
import { REDACTED, Redactor } from "../../src/redaction/redact.ts";
import { leaksIn, secretForms } from "../hostile/secret-forms.ts";

const clientId = "acme-ci";
const secret = 's3cr3t/client+key"x';
const token = "eyJhbGciOiJIUzI1NiJ9.Tok3nValue";

function redactor(): Redactor {
  const redact = new Redactor();
  redact.addCredential(clientId, secret);
  redact.addSecret(token);
  return redact;
}

const run = "\\".repeat(300_000);

describe("the redactor against input built to slow it down", () => {
  it("hides every form of a secret between two long runs of backslashes, the runs kept", () => {
    const redact = redactor();
    const secrets = [{ clientId, secret }, { secret: token }];
    for (const { clientId: id, secret: value } of secrets) {
      for (const form of secretForms(id, value)) {
        const text = `${run}${form}${run}x`;
        const out = redact.text(text);
        expect(leaksIn(out, [{ secret: value }])).toEqual([]);
        expect(out).toContain(REDACTED);
        expect(out.startsWith(run.slice(0, 1000))).toBe(true);
        expect(out.endsWith(`${run.slice(0, 1000)}x`)).toBe(true);
      }
    }
  });

  it("hides a token echoed once before a long run of backslashes", () => {
    const out = redactor().text(`{"echo":"${token}"} ${run}${run}`);
    expect(out).toBe(`{"echo":"${REDACTED}"} ${run}${run}`);
  });

  it("hides the head of a token before each of 40,000 cut marks", () => {
    const head = token.slice(0, 8);
    const text = `${token} ${`${head}... `.repeat(40_000)}`;
    const out = redactor().text(text);
    expect(out).not.toContain(head);
    expect(out.startsWith(`${REDACTED} ${REDACTED}... ${REDACTED}... `)).toBe(true);
    expect(out.split("...")).toHaveLength(40_001);
  });
});
