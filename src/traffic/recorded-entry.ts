// One recorded entry in the kit's exchange model (the sandbox's RecordedExchange, which the caller rules
// read): a HAR 1.2 entry, or a line of NDJSON in either the HAR entry's shape or the kit's Exchange shape
// (exchanges.ndjson of lckit client check). What the entry cannot tell is said, never made up: an entry
// without a time has `at` undefined, a body the recorder cut is marked.
import type { RecordedExchange } from "../reference/index.ts";

/** Bodies kept per exchange: the kit's own HAR keeps 64 KB; a longer body is cut and marked. */
export const BODY_CHARS = 1024 * 1024;

export interface ReadExchange extends Omit<RecordedExchange, "at"> {
  /** Epoch ms the request was sent, when the entry says (a HAR always does). */
  at: number | undefined;
  /** The recorder (or this reader) cut the response body: it cannot be judged as a whole. */
  responseCut?: true;
  /** No answer came (the recorder's error): status 0. */
  noAnswer?: true;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** HAR headers ([{name, value}]) or an object of them, names in lower case; repeated names joined. */
function headersOf(raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const add = (name: string, value: string) => {
    const key = name.toLowerCase();
    // HTTP/2 pseudo-headers (:authority, ...) a browser records are no header of the request.
    if (key.startsWith(":")) return;
    out[key] = out[key] === undefined ? value : `${out[key]}, ${value}`;
  };
  if (Array.isArray(raw)) {
    for (const h of raw) if (isObject(h) && typeof h.name === "string") add(h.name, String(h.value ?? ""));
  } else if (isObject(raw)) for (const [name, value] of Object.entries(raw)) add(name, String(value));
  return out;
}

function cut(text: string | undefined): { text: string | undefined; cut: boolean } {
  if (text === undefined || text.length <= BODY_CHARS) return { text, cut: false };
  return { text: text.slice(0, BODY_CHARS), cut: true };
}

/** The exchange of one entry, or why the entry is not one (no request method and URL). */
export function exchangeOfEntry(value: unknown, seq: number): ReadExchange | { notAnExchange: string } {
  if (!isObject(value) || !isObject(value.request))
    return { notAnExchange: `entry ${seq} has no request object` };
  const request = value.request;
  const method = str(request.method)?.toUpperCase();
  const url = str(request.url);
  if (method === undefined || url === undefined)
    return { notAnExchange: `entry ${seq} has no request method and URL` };
  const response = isObject(value.response) ? value.response : undefined;
  // HAR: request.postData.text and response.content.text (base64 when content.encoding says so);
  // the kit's Exchange: request.body and response.body.
  const postData = isObject(request.postData) ? request.postData : undefined;
  const requestBody = cut(str(postData?.text) ?? str(request.body));
  const content = response && isObject(response.content) ? response.content : undefined;
  let responseText = str(content?.text) ?? str(response?.body) ?? "";
  if (content?.encoding === "base64") responseText = Buffer.from(responseText, "base64").toString("utf8");
  const responseBody = cut(responseText);
  const recorderCut =
    response?.bodyTruncated === true ||
    /\bcut\b|truncat/i.test(str(content?.comment) ?? "") ||
    (typeof content?.size === "number" && content.size > Buffer.byteLength(responseText) && content.size > 0);
  const status = typeof response?.status === "number" ? response.status : 0;
  const started = str(value.startedDateTime);
  const at =
    typeof value.at === "number" ? value.at : started === undefined ? undefined : Date.parse(started);
  const duration =
    typeof value.time === "number" ? value.time : typeof value.durationMs === "number" ? value.durationMs : 0;
  return {
    seq,
    at: at === undefined || Number.isNaN(at) ? undefined : at,
    method,
    url,
    headers: headersOf(request.headers),
    ...(requestBody.text === undefined ? {} : { body: requestBody.text }),
    status,
    responseHeaders: headersOf(response?.headers),
    responseBody: responseBody.text ?? "",
    durationMs: Math.max(0, duration),
    ...(recorderCut || responseBody.cut ? { responseCut: true as const } : {}),
    ...(status === 0 ? { noAnswer: true as const } : {}),
  };
}
