// Matchers the consumer tests share: loose where deployments may differ, exact where the contract is.
import { MatchersV3 } from "@pact-foundation/pact";

const { regex, like, integer, number, boolean, fromProviderState } = MatchersV3;

/**
 * A value the provider state supplies at verification (Pact's fromProviderState): `{name}` in the template
 * becomes the expression ${name}, filled from what the state handler returns; `example` is used until then.
 */
export function fromState(template: string, example: string) {
  return fromProviderState(
    template.replace(/\{(\w+)\}/g, (_, name: string) => `$\{${name}}`),
    example,
  );
}

/**
 * An access token as a bearer credential: the interaction's token state (STATE.*Token) yields accessToken,
 * and any Pact verifier that calls a state-change URL puts it into the header (provider-state injection).
 */
export const bearer = fromState("Bearer {accessToken}", "Bearer 3q2DzKf0n1Xo0cQ2m8sR5u7w9yA1bC3dE5fG7hI9jK");

export const basicAuth = (example: string) => regex("^Basic [A-Za-z0-9+/=]+$", example);

/** JSON responses, with or without a charset parameter. */
export const jsonResponse = { "Content-Type": regex("^application/json(;.*)?$", "application/json") };

/** An error body as docs/assumptions.md fixes it: a stable code and a description. */
export function errorBody(code: string, description: ReturnType<typeof regex> | string) {
  return {
    error: like(code),
    error_description: typeof description === "string" ? like(description) : description,
  };
}

/** The fields of a lookup a consumer reads. */
export function lookupOf(type: string, code: string) {
  return {
    tenantId: like("acme"),
    type: regex(`^rdm/lookupTypes/${type}$`, `rdm/lookupTypes/${type}`),
    code: like(code),
    enabled: boolean(true),
    updateDate: number(1740993321290),
    version: integer(6),
  };
}

/** The fields of an autopilot statistic that every record carries (candidate fields may be absent). */
export function statisticOf(lookupType: ReturnType<typeof regex> | ReturnType<typeof like>) {
  return {
    tenantId: like("acme"),
    lookupType,
    source: like("Marketo"),
    unmappedValue: like("Azeraijan"),
    status: like("TRACKING"),
    semanticScore: number(0.38),
    createdAt: number(1741035977105),
  };
}

/** A lookup type named either way the interface allows: Country or rdm/lookupTypes/Country. */
export const countryType = (example: string) => regex("^(rdm/lookupTypes/)?Country$", example);
