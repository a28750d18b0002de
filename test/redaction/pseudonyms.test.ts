// Pseudonymous redaction (the kit's own recordings): each distinct secret becomes a label of its own, the
// same label in every form the secret takes, never derived from the value; no form of a secret is left.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { basicAuthorization, formEncode } from "../../src/client/token.ts";
import { PSEUDONYM } from "../../src/redaction/pseudonyms.ts";
import { Redactor } from "../../src/redaction/redact.ts";
import { secretForms } from "../hostile/secret-forms.ts";

const clientId = "client+id %1";
const clientSecret = "s3cr+t %:val/ue&<'\"";
const token = "eyJhbGciOiJIUzI1NiJ9.payload-part.signature_part";

function recorder(): Redactor {
  const r = new Redactor({ pseudonyms: true });
  r.addCredential(clientId, clientSecret);
  r.addSecret(token);
  return r;
}

describe("pseudonymous redaction", () => {
  it("replaces every form of a credential and a token, each by its own label, the same in every form", () => {
    const r = recorder();
    const secretLabel = r.text(`x ${clientSecret} y`).slice(2, -2);
    const tokenLabel = r.text(`x ${token} y`).slice(2, -2);
    expect(secretLabel).toMatch(/^redacted-secret-\d+$/);
    expect(tokenLabel).toMatch(/^redacted-token-\d+$/);
    const forms = [...secretForms(clientId, clientSecret), ...secretForms(undefined, token)];
    for (const form of forms)
      for (const text of [form, `x${form}y`, `{"echo":${JSON.stringify(form)}}`, `a=${form}&b=1`]) {
        const out = r.text(text);
        for (const other of forms) expect(out, `${form} in ${text}`).not.toContain(other);
        expect(out, text).toMatch(new RegExp(`${secretLabel}|${tokenLabel}`));
      }
  });

  it("labels a token alike where it is issued, sent and echoed; a Basic pair keeps its client id", () => {
    const r = recorder();
    const issued = r.text(JSON.stringify({ access_token: token, expires_in: 3600 }));
    const label = /"access_token":"([^"]+)"/.exec(issued)?.[1] as string;
    expect(label).toMatch(PSEUDONYM);
    expect(r.headers({ authorization: `Bearer ${token}` })).toEqual({ authorization: `Bearer ${label}` });
    expect(r.text(`{"debug":"got Bearer ${token}"}`)).toBe(`{"debug":"got Bearer ${label}"}`);
    const basic = r.headers({ authorization: basicAuthorization({ clientId, clientSecret }) }).authorization;
    const pair = Buffer.from(basic?.slice("Basic ".length) ?? "", "base64").toString();
    expect(pair).toBe(`${formEncode(clientId)}:${r.text(clientSecret)}`);
    const body = r.text(`grant_type=client_credentials&client_secret=${formEncode(clientSecret)}`);
    expect(body).toBe(`grant_type=client_credentials&client_secret=${r.text(clientSecret)}`);
  });

  it("gives labels by order of meeting, not by value: two runs with other secrets give the same labels", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Za-z0-9]{8,30}$/),
        fc.stringMatching(/^[A-Za-z0-9]{8,30}$/),
        (a, b) => {
          fc.pre(a !== b && !a.includes(b) && !b.includes(a));
          const labels = (first: string, second: string) => {
            const r = new Redactor({ pseudonyms: true });
            return [
              r.headers({ authorization: `Bearer ${first}` }),
              r.headers({ authorization: `Bearer ${second}` }),
            ];
          };
          expect(labels(a, b)).toEqual(labels(b, a));
          expect(labels(a, b)[0]).not.toEqual(labels(a, b)[1]);
        },
      ),
      { numRuns: 40, seed: 7 },
    );
  });

  it("keeps what a judge needs of a value it hides: malformed stays malformed, never issued is said only where known", () => {
    const r = new Redactor({ pseudonyms: true });
    expect(r.headers({ authorization: "Bearer not a token" }).authorization).toMatch(
      /^Bearer \{redacted-malformed-\d+\}$/,
    );
    expect(r.headers({ authorization: "Bearer made-up-token" }).authorization).toMatch(
      /^Bearer redacted-token-\d+$/,
    );
    const run = new Redactor({ pseudonyms: true, issuedWithin: true });
    run.addSecret(token);
    expect(run.headers({ authorization: `Bearer ${token}` }).authorization).toMatch(
      /^Bearer redacted-token-\d+$/,
    );
    expect(run.headers({ authorization: "Bearer made-up-token" }).authorization).toMatch(
      /^Bearer redacted-unissued-\d+$/,
    );
  });

  it("leaves the default redaction as it was: one placeholder", () => {
    const r = new Redactor();
    r.addSecret(token);
    expect(r.headers({ authorization: `Bearer ${token}` })).toEqual({ authorization: "Bearer [redacted]" });
  });
});
