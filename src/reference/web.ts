// Web-standard stand-ins for the few Node APIs the reference used, so its core bundles for a browser (the
// MSW worker) and runs the same in Node 20+: Node keeps its own implementation where one exists.

/** A random UUID (v4). */
export function randomUuid(): string {
  return globalThis.crypto.randomUUID();
}

/** `bytes` random bytes as base64url without padding (what Buffer's "base64url" gives). */
export function randomBase64Url(bytes: number): string {
  const random = globalThis.crypto.getRandomValues(new Uint8Array(bytes));
  let binary = "";
  for (const byte of random) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Waits `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Lets every pending I/O callback and macrotask run first (setImmediate where there is one). */
export function yieldToEventLoop(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;
  return new Promise((resolve) => (immediate ? immediate(resolve) : setTimeout(resolve, 0)));
}

interface NodeBuffer {
  from(text: string, encoding: "base64"): { toString(encoding: "utf8"): string };
}

/** Base64 (or base64url) text decoded as UTF-8, leniently as Node's Buffer: characters outside the alphabet are skipped. */
export function decodeBase64Text(text: string): string {
  const buffer = (globalThis as { Buffer?: NodeBuffer }).Buffer;
  if (buffer) return buffer.from(text, "base64").toString("utf8");
  const clean =
    text
      .replace(/-/g, "+")
      .replace(/_/g, "/")
      .split("=")[0]
      ?.replace(/[^A-Za-z0-9+/]/g, "") ?? "";
  const usable = clean.length % 4 === 1 ? clean.slice(0, -1) : clean;
  const binary = atob(usable);
  return new TextDecoder().decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
}

/** Seconds since the process (or the page) started. */
export function uptimeSeconds(): number {
  const process = (globalThis as { process?: { uptime?: () => number } }).process;
  return process?.uptime ? process.uptime() : performance.now() / 1000;
}
