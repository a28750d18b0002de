import { describe, expect, it } from "vitest";
import { Redactor } from "../../src/runner/redact.ts";

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
      "a form client_secret",
      "grant_type=client_credentials&client_secret=xyz&client_id=c",
      "grant_type=client_credentials&client_secret=[redacted]&client_id=c",
    ],
    ["a query access_token", "https://h/x?access_token=t0k&a=1", "https://h/x?access_token=[redacted]&a=1"],
    ["a known secret anywhere", "echo: top secret/value!", "echo: [redacted]!"],
    ["a known secret URL-encoded", "s=top%20secret%2Fvalue", "s=[redacted]"],
    ["a short value left alone", "abc abcd", "abc abcd"],
  ])("text: %s", (_name, given, want) => {
    expect(redactor().text(given)).toBe(want);
  });

  it.each([
    ["authorization", "Basic dXNlcjpwYXNz", "Basic [redacted]"],
    ["Authorization", "Bearer abc.def", "Bearer [redacted]"],
    ["cookie", "session=1", "[redacted]"],
    ["content-type", "application/json", "application/json"],
  ])("header %s", (name, value, want) => {
    expect(redactor().headers({ [name]: value })).toEqual({ [name]: want });
  });

  it("redacts every string of a nested value, keys kept", () => {
    const got = redactor().deep({ a: ["top secret/value"], b: { c: 1, d: "x top secret/value" } });
    expect(got).toEqual({ a: ["[redacted]"], b: { c: 1, d: "x [redacted]" } });
  });
});
