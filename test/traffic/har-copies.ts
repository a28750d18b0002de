// Long traffic made from short real traffic: a HAR's entries written again and again, each copy shifted in
// time past every token's lifetime and with its own tokens and scroll ids (a suffix per copy), so the
// copies are distinct days of the same clients, not one client replaying its tokens. The bounded-memory
// test and npm run bench:judge write their traffic with it.

import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { clientCheck } from "../../src/commands/client/check.ts";
import { packagePath } from "../../src/package-root.ts";
import type { TrafficExchange } from "../../src/rules/caller/traffic.ts";

/** Real traffic of two clients side by side, in time order: the example client as nightly-sync with
 *  FAULT=wrong-scroll (a scroll continued with a wrong id) and as order-service, correct. */
export async function twoExampleClients(): Promise<TrafficExchange[]> {
  const client = packagePath("examples", "clients", "lookup-client.mjs");
  const check = (clientId: string, fault?: string) =>
    clientCheck({
      argv: [process.execPath, client],
      clientId,
      env: { ...process.env, ...(fault ? { FAULT: fault } : {}) },
      timeoutMs: 60_000,
    });
  const [faulty, correct] = await Promise.all([
    check("nightly-sync", "wrong-scroll"),
    check("order-service"),
  ]);
  return [...faulty.traffic.exchanges, ...correct.traffic.exchanges].sort((a, b) => a.at - b.at);
}

/** HAR entries of exchanges as a recorder in front of the service saw them (unredacted). */
export function harEntriesOf(exchanges: readonly TrafficExchange[]): Record<string, unknown>[] {
  const pairs = (h: Record<string, string>) => Object.entries(h).map(([name, value]) => ({ name, value }));
  return exchanges.map((x) => ({
    startedDateTime: new Date(x.at).toISOString(),
    time: x.durationMs,
    request: {
      method: x.method,
      url: x.url,
      headers: pairs(x.headers),
      ...(x.body === undefined
        ? {}
        : { postData: { mimeType: x.headers["content-type"] ?? "", text: x.body } }),
    },
    response: { status: x.status, headers: pairs(x.responseHeaders), content: { text: x.responseBody } },
  }));
}

/** Every token and scroll id the entries' answers gave: what each copy renames. */
function renamedValues(entries: readonly Record<string, unknown>[]): string[] {
  const found = new Set<string>();
  for (const e of entries) {
    const text = ((e.response as { content?: { text?: string } } | undefined)?.content?.text ?? "") as string;
    for (const m of text.matchAll(/"(?:access_token|scrollId)"\s*:\s*"([^"]{6,})"/g))
      found.add(m[1] as string);
  }
  return [...found].sort((a, b) => b.length - a.length);
}

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Writes `copies` copies of `entries` as one HAR; returns the number of entries written. */
export async function writeHarCopies(
  path: string,
  entries: readonly Record<string, unknown>[],
  copies: number,
  options: { shiftMs?: number } = {},
): Promise<number> {
  const times = entries.map((e) => Date.parse(e.startedDateTime as string));
  const span = Math.max(...times) - Math.min(...times);
  // Past the longest token lifetime, so no copy's tokens are active in the next.
  const shift = options.shiftMs ?? span + 2 * 3_600_000;
  const values = renamedValues(entries);
  const pattern = values.length > 0 ? new RegExp(values.map(literal).join("|"), "g") : undefined;
  const texts = entries.map((e) => {
    const { startedDateTime: _, ...rest } = e;
    return JSON.stringify(rest).slice(1);
  });
  const out = createWriteStream(path);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, "drain");
  };
  await write('{"log":{"version":"1.2","creator":{"name":"har-copies","version":"1"},"entries":[');
  let written = 0;
  for (let k = 0; k < copies; k++) {
    const suffix = `c${k}`;
    for (let i = 0; i < texts.length; i++) {
      const body = pattern ? (texts[i] as string).replace(pattern, (m) => m + suffix) : (texts[i] as string);
      const at = new Date((times[i] as number) + k * shift).toISOString();
      await write(`${written === 0 ? "" : ","}{"startedDateTime":"${at}",${body}`);
      written += 1;
    }
  }
  await write("]}}");
  out.end();
  await once(out, "finish");
  return written;
}
