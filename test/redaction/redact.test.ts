import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { basicAuthorization, formEncode } from "../../src/client/token.ts";
import { REDACTED, Redactor, secretFieldValues } from "../../src/redaction/redact.ts";
import { secretForms } from "../hostile/secret-forms.ts";

function redactor(): Redactor {
  const r = new Redactor();
  r.addSecret("top secret/value");
  r.addSecret("abc"); // too short to redact safely: ignored
  return r;
}

describe("Redactor", () => {
  it.each([
    [
      "a JSON access_token",
      '{"access_token":"eyJ.x.y","token_type":"bearer"}',
      '{"access_token":"[redacted]","token_type":"bearer"}',
    ],
    [
      "a JSON clientSecret with escapes",
      '{"clientSecret": "a\\"b", "clientId": "c"}',
      '{"clientSecret": "[redacted]", "clientId": "c"}',
    ],
    [
      "an access_token in JSON inside a JSON string",
      '{"debug":"{\\"access_token\\":\\"eyJ.unknown\\",\\"x\\":1}"}',
      '{"debug":"{\\"access_token\\":\\"[redacted]\\",\\"x\\":1}"}',
    ],
    [
      "a form client_secret",
      "grant_type=client_credentials&client_secret=xyz&client_id=c",
      "grant_type=client_credentials&client_secret=[redacted]&client_id=c",
    ],
    ["a query access_token", "https://h/x?access_token=t0k&a=1", "https://h/x?access_token=[redacted]&a=1"],
    ["an echoed Basic credential", "you sent Basic dW5rbm93bjpzZWNyZXQ=.", "you sent Basic [redacted]."],
    ["an echoed Bearer credential", '{"seen":"Bearer abc.def.ghi"}', '{"seen":"Bearer [redacted]"}'],
    [
      "a challenge's auth-params kept",
      'Bearer error_description="expired", Basic realm="lckit"',
      'Bearer error_description="expired", Basic realm="lckit"',
    ],
    ["a known secret anywhere", "echo: top secret/value!", "echo: [redacted]!"],
    ["a known secret URL-encoded", "s=top%20secret%2Fvalue", "s=[redacted]"],
    ["a known secret form-encoded", "s=top+secret%2fvalue", "s=[redacted]"],
    ["a known secret JSON-escaped", '"top secret\\/value"', '"[redacted]"'],
    ["a known secret \\u-escaped", '"\\u0074op secret\\u002Fvalue"', '"[redacted]"'],
    ["a known secret HTML-escaped", "top secret&#x2F;value", "[redacted]"],
    ["a short value left alone", "abc abcd", "abc abcd"],
  ])("text: %s", (_name, given, want) => {
    expect(redactor().text(given)).toBe(want);
  });

  it.each([
    ["authorization", "Basic dXNlcjpwYXNz", "Basic [redacted]"],
    ["Authorization", "Bearer abc.def", "Bearer [redacted]"],
    ["cookie", "session=1", "[redacted]"],
    ["x-auth-token", "anything", "[redacted]"],
    ["x-debug-client-secret", "anything", "[redacted]"],
    ["x-echo", "you sent top secret/value", "you sent [redacted]"],
    ["www-authenticate", 'Bearer error="invalid_token"', 'Bearer error="invalid_token"'],
    ["access-control-allow-credentials", "true", "true"],
    ["content-type", "application/json", "application/json"],
  ])("header %s", (name, value, want) => {
    expect(redactor().headers({ [name]: value })).toEqual({ [name]: want });
  });

  it("redacts every string of a nested value, keys kept", () => {
    const got = redactor().deep({ a: ["top secret/value"], b: { c: 1, d: "x top secret/value" } });
    expect(got).toEqual({ a: ["[redacted]"], b: { c: 1, d: "x [redacted]" } });
  });

  // The secret of issue 11: "+", "%", ":" and a space survive only when every form is known.
  const clientId = "viewer-client";
  const clientSecret = "s3cr+t %:val/ue";

  it("redacts every form of a credential, in any surrounding text", () => {
    const r = new Redactor();
    r.addCredential(clientId, clientSecret);
    const forms = secretForms(clientId, clientSecret);
    expect(forms.length).toBeGreaterThan(10);
    for (const form of forms) {
      for (const text of [form, `x${form}y`, `{"echo":${JSON.stringify(form)}}`, `a=${form}&b=1`]) {
        const out = r.text(text);
        for (const other of forms) expect(out, `${form} in ${text}`).not.toContain(other);
      }
    }
  });

  it("redacts a Basic header of the credential, raw or RFC 6749 form-encoded, padded or not", () => {
    const r = new Redactor();
    r.addCredential(clientId, clientSecret);
    const header = basicAuthorization({ clientId, clientSecret }).slice("Basic ".length);
    const raw = Buffer.from(`${clientId}:${clientSecret}`).toString("base64");
    for (const b64 of [
      header,
      raw,
      header.replace(/=+$/, ""),
      Buffer.from(raw, "base64").toString("base64url"),
    ]) {
      expect(r.text(`{"debug":"${b64}"}`)).toBe(`{"debug":"${REDACTED}"}`);
      expect(r.text(`auth=${encodeURIComponent(b64)}`)).toBe(`auth=${REDACTED}`);
    }
  });

  it("finds a secret inside any Base64 blob that carries it, at every alignment", () => {
    const secret = "s3cr+t %:val/ue-long-enough";
    const r = new Redactor();
    r.addSecret(secret);
    fc.assert(
      fc.property(fc.string({ maxLength: 7 }), fc.string({ maxLength: 7 }), (before, after) => {
        const blob = Buffer.from(`${before}${secret}${after}`).toString("base64");
        const out = r.text(`header: ${blob} end`);
        expect(out).toBe(`header: ${REDACTED} end`);
      }),
      { numRuns: 60, seed: 11 },
    );
  });

  it("matches the secret in mixed encodings (one character escaped, the next not)", () => {
    const r = new Redactor();
    r.addSecret(clientSecret);
    expect(r.text("s3cr%2Bt+%25:val\\/ue")).toBe(REDACTED);
  });

  it.each([
    ["a plain cut", "got 401 you sent top secret/va...", "got 401 you sent [redacted]..."],
    ["a cut JSON-escaped", '{"echo":"top secret\\/val…', '{"echo":"[redacted]…'],
    ["a cut form-encoded", "body=top+secret%2Fv... (300 chars)", "body=[redacted]... (300 chars)"],
    ["an ellipsis with no secret before it", "and so on...", "and so on..."],
  ])("redacts the start of a secret an excerpt cut: %s", (_name, given, want) => {
    expect(redactor().text(given)).toBe(want);
  });

  it("leaves bodies without secrets untouched", () => {
    const r = new Redactor();
    r.addCredential(clientId, clientSecret);
    r.addSecret("eyJhbGciOiJIUzI1NiJ9.payload.signature");
    const body = JSON.stringify({ values: [{ uri: "acme/Country/DE", code: "DE", label: "100% + more" }] });
    expect(r.text(body)).toBe(body);
  });

  it("extracts secret field values, unescaped, so the transport can learn tokens it sees", () => {
    expect(secretFieldValues('{"access_token":"t\\/1"}')).toContain("t/1");
    expect(secretFieldValues('"{\\"access_token\\":\\"tok-2\\"}"')).toContain("tok-2");
    expect(secretFieldValues("grant_type=x&client_secret=a+b%25")).toContain("a b%");
  });

  it("formEncode is application/x-www-form-urlencoded", () => {
    expect(formEncode("a b+c%d:e/f")).toBe("a+b%2Bc%25d%3Ae%2Ff");
  });
});
