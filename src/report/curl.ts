// A curl line that resends a failing exchange, beside the `lckit run --check ... --seed ...` replay. It is
// built from the evidence, which is already redacted: wherever a secret was, the line reads an environment
// variable instead ($LCKIT_TOKEN for a bearer token, $LCKIT_CLIENT_ID/$LCKIT_CLIENT_SECRET for Basic
// client authentication, $LCKIT_SECRET elsewhere), so the line never holds a secret value.
import type { Exchange, FailureDetail } from "../check/index.ts";
import { PSEUDONYMS } from "../redaction/pseudonyms.ts";
import { REDACTED } from "../redaction/redact.ts";
import { citation } from "../result/evidence.ts";

/** Headers the transport sets by itself (or that would be wrong when resent by hand). */
const skipped = new Set(["host", "content-length", "connection", "accept-encoding", "transfer-encoding"]);

/** The environment variables a curl line may read, for the text that tells the user to set them. */
export const CURL_VARIABLES = [
  "LCKIT_TOKEN",
  "LCKIT_CLIENT_ID",
  "LCKIT_CLIENT_SECRET",
  "LCKIT_SECRET",
] as const;

/** A redacted spot: the one placeholder, or a label of the kit's (redacted-token-1: pseudonyms.ts). */
const REDACTED_SPOT = new RegExp(`\\[redacted\\]|${PSEUDONYMS.source}`);
const redactedIn = (text: string) => REDACTED_SPOT.test(text);

/** A Basic credential whose secret was redacted (the one placeholder, or the pair with its secret's label). */
function redactedBasic(value: string): boolean {
  if (value.includes(REDACTED)) return true;
  const pair = /^basic\s+(\S+)/i.exec(value)?.[1];
  return pair !== undefined && redactedIn(Buffer.from(pair, "base64").toString("utf8"));
}

/** One shell word: literal text single-quoted, each redacted spot replaced by "$VARIABLE". */
function word(text: string, variable: string): string {
  return text
    .split(new RegExp(REDACTED_SPOT.source, "g"))
    .map((part) => (part === "" ? "" : `'${part.replace(/'/g, `'\\''`)}'`))
    .join(`"$${variable}"`)
    .replace(/^$/, "''");
}

export function curlFor(exchange: Exchange): string {
  const { method, url, headers, body, bodyTruncated } = exchange.request;
  const args = ["curl", "-sS", "-i"];
  if (method !== "GET" || body !== undefined) args.push("-X", word(method, "LCKIT_SECRET"));
  args.push(word(url, "LCKIT_SECRET"));
  for (const [name, value] of Object.entries(headers)) {
    if (skipped.has(name.toLowerCase())) continue;
    if (name.toLowerCase() === "authorization" && /^basic\s/i.test(value) && redactedBasic(value)) {
      args.push("-u", '"$LCKIT_CLIENT_ID:$LCKIT_CLIENT_SECRET"');
      continue;
    }
    const variable = name.toLowerCase() === "authorization" ? "LCKIT_TOKEN" : "LCKIT_SECRET";
    args.push("-H", word(`${name}: ${value}`, variable));
  }
  if (body !== undefined) args.push("--data-binary", word(body, "LCKIT_SECRET"));
  const line = args.join(" ");
  return bodyTruncated ? `${line}  # the evidence cut the body: the request sent more` : line;
}

/** The curl line of a failed check: the exchange its failure detail names as the request it is about
 *  (the last such), else its last exchange, which is the one the failure was judged on. */
export function curlForCheck(check: { evidence?: Exchange[]; details?: FailureDetail }): string | undefined {
  const { details } = check;
  const cited =
    details?.request === undefined
      ? undefined
      : check.evidence?.findLast((x) => citation({ request: details.request }, x) === "request");
  const chosen = cited ?? check.evidence?.at(-1);
  return chosen === undefined ? undefined : curlFor(chosen);
}
