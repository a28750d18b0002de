// Small recorded traffic with its times known: token requests and first pages of scans, each at a time the
// test names (undefined: the recording gave none).
import type { RunResult } from "../../src/result/model.ts";
import { judgeExchanges } from "../../src/traffic/judge.ts";
import type { ReadExchange } from "../../src/traffic/recorded-entry.ts";

export const BASE = "https://auth.example";
export const RDM = "https://rdm.example";
export const T0 = 1_700_000_000_000;
let seq = 0;

/** One recorded exchange: a 200 JSON answer at T0 unless `over` says otherwise; `seq` counts up across
 *  every test file's traffic built here. */
export function exchange(over: Partial<ReadExchange> & Pick<ReadExchange, "url">): ReadExchange {
  seq += 1;
  return {
    seq,
    at: T0,
    method: "POST",
    headers: {},
    status: 200,
    responseHeaders: { "content-type": "application/json" },
    responseBody: JSON.stringify({ values: [] }),
    durationMs: 1,
    ...over,
  };
}

/** A token request of `client` answered with `value` (status 200), or declined with `status`. */
export const token = (
  client: string,
  value: string,
  at: number | undefined,
  status = 200,
  expiresIn = 3600,
) =>
  exchange({
    url: `${BASE}/oauth/token`,
    at,
    headers: {
      authorization: `Basic ${Buffer.from(`${client}:secret-of-${client}`).toString("base64")}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: "grant_type=client_credentials",
    status,
    responseBody:
      status === 200
        ? JSON.stringify({ access_token: value, token_type: "Bearer", expires_in: expiresIn })
        : JSON.stringify({ error: "limit_exceeded", error_description: "Max active tokens limit exceeded" }),
  });
/** A first page of a scan that ends at once, with `query`, by the holder of `value` (none: no header). */
export const scan = (query: string, at: number | undefined, value?: string) =>
  exchange({
    url: `${RDM}/lookups/acme/_scan${query}`,
    at,
    headers: value === undefined ? {} : { authorization: `Bearer ${value}` },
  });

export const S = 1000;

/** A minute of traffic: `client`'s scans with query strings (one with a parameter the operation does not
 *  define, at 45 s), and a scan without a token the service answered (its fault, at 30 s). */
export const MINUTE_OF_TRAFFIC = (client: string, value = `tok-${client}`): ReadExchange[] => [
  token(client, value, T0),
  scan("?limit=2", T0 + 5 * S, value),
  scan("?limit=2", T0 + 20 * S, value),
  scan("?limit=2", T0 + 30 * S),
  scan("?limit=2", T0 + 40 * S, value),
  scan("?limt=2", T0 + 45 * S, value),
  scan("?limit=2", T0 + 59 * S, value),
];

/** A client id that would break markup unescaped. */
export const HOSTILE_CLIENT = `a<b>&"c'`;

/** Two clients' minutes interleaved (one of them with a hostile id), and one more scan: judged. */
export function judgedMinutes(): RunResult {
  const traffic = [
    ...MINUTE_OF_TRAFFIC("alpha"),
    ...MINUTE_OF_TRAFFIC(HOSTILE_CLIENT, "tok-hostile"),
    scan("?limit=2", T0 + 50 * S, "tok-alpha"),
  ].sort((a, b) => (a.at as number) - (b.at as number));
  return judgeExchanges(traffic, { source: "t.har" }).result;
}
