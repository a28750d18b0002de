// Authorization header values no correct target accepts: malformed, of another scheme, or a bearer token
// it never issued. The boundary values come first (the forms faulty implementations let through); random
// ones follow.
import fc from "fast-check";

/** One value of the header, with what it is (named in failures and in what a check explored). */
export interface AuthorizationValue {
  label: string;
  value: string;
}

const token68 = fc.stringMatching(/^[A-Za-z0-9._~+/-]{1,80}=*$/);

/** Random values: bearer tokens never issued, Basic credentials never issued, fixed malformed forms. */
export const madeUpAuthorization: fc.Arbitrary<string> = fc.oneof(
  token68.map((t) => `Bearer ${t}`),
  fc.constantFrom("Bearer", "Bearer  ", "bearer null", "Bearer undefined", "Token abc", "Basic Zm9vOmJhcg=="),
  token68.map((t) => `Basic ${t}`),
);

function base64url(text: string): string {
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const claims = base64url(
  JSON.stringify({ iss: "https://issuer.invalid/", sub: "lckit-made-up", aud: "lckit", exp: 4102444800 }),
);

/** A signed JWT of an issuer the target does not know (the signature is made up). */
export const foreignIssuerJwt = `${base64url(JSON.stringify({ alg: "HS256", typ: "JWT" }))}.${claims}.${base64url("lckit: signed by nobody the target trusts")}`;

/** An unsigned JWT ("alg": "none"), which a verifier must never trust. */
export const unsignedJwt = `${base64url(JSON.stringify({ alg: "none", typ: "JWT" }))}.${claims}.`;

const successor = (alphabet: string, c: string) => alphabet[(alphabet.indexOf(c) + 1) % alphabet.length];

/**
 * A token of the same shape as an issued one that was never issued: one character inside the token
 * replaced by another of its class (digit, hex letter, other letter, either case), never the last of a
 * dot-separated part, whose low bits base64 decoders may ignore. Undefined when the token has no such
 * character.
 */
export function neverIssuedLike(issued: string): string | undefined {
  const middle = Math.floor(issued.length / 2);
  for (let offset = 0; offset < issued.length; offset++) {
    const i = (middle + offset) % issued.length;
    const c = issued[i] as string;
    const next = issued[i + 1];
    if (next === undefined || !/[A-Za-z0-9]/.test(next) || !/[A-Za-z0-9]/.test(c)) continue;
    const classes = ["0123456789", "abcdef", "ABCDEF", "ghijklmnopqrstuvwxyz", "GHIJKLMNOPQRSTUVWXYZ"];
    const alphabet = classes.find((k) => k.includes(c)) as string;
    return `${issued.slice(0, i)}${successor(alphabet, c)}${issued.slice(i + 1)}`;
  }
  return undefined;
}

/**
 * The boundary values, first-class: an empty bearer, the scheme alone, a lowercase scheme, another
 * scheme, a token of the issued shape never issued (when an issued token is at hand), another issuer's
 * JWT, an unsigned JWT, a token without a scheme.
 */
export function boundaryAuthorizations(issued: string | undefined): AuthorizationValue[] {
  const lookalike = (issued && neverIssuedLike(issued)) ?? "lckit-never-issued-0000";
  return [
    ...(issued && neverIssuedLike(issued)
      ? [{ label: "a token of the issued shape, never issued", value: `Bearer ${lookalike}` }]
      : []),
    { label: "the scheme with an empty token", value: "Bearer " },
    { label: "a lowercase scheme with a token never issued", value: `bearer ${lookalike}` },
    { label: "the Basic scheme", value: "Basic Zm9vOmJhcg==" },
    { label: "another scheme with a token never issued", value: `Token ${lookalike}` },
    { label: "a JWT of another issuer", value: `Bearer ${foreignIssuerJwt}` },
    { label: "an unsigned JWT (alg none)", value: `Bearer ${unsignedJwt}` },
    { label: "a token without a scheme", value: lookalike },
    { label: "the literal null", value: "Bearer null" },
  ];
}
