import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { build } from "esbuild";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { findChromium, NO_CHROMIUM_FIX } from "../support/chromium.ts";

const repo = join(import.meta.dirname, "..", "..");
const ENTRY = join(repo, "src", "mock", "msw-browser.ts");
const WORKER = join(repo, "node_modules", "msw", "lib", "mockServiceWorker.js");
const data = parse(readFileSync(join(repo, "examples", "sandbox-data.yaml"), "utf8"));

// The page: MSW's worker with the browser handlers under this origin's /api, then what a client does.
// Compiled by esbuild for the browser (this project type-checks without the DOM library).
const PAGE = `
import { setupWorker } from "msw/browser";
import { sandboxHandlers } from "./src/mock/msw-browser.ts";

async function main() {
  const { handlers, baseUrl, sandbox } = await sandboxHandlers({ data: __DATA__, baseUrl: location.origin + "/api" });
  await setupWorker(...handlers).start({ quiet: true, onUnhandledRequest: "error", serviceWorker: { url: "/mockServiceWorker.js" } });
  const token = await fetch(baseUrl + "/oauth/token", {
    method: "POST",
    headers: { authorization: "Basic " + btoa("order-service:order-service-secret"), "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  });
  const tokenBody = await token.json();
  const auth = { authorization: "Bearer " + tokenBody.access_token };
  const first = await fetch(baseUrl + "/lookups/shop/_scan?limit=2&sort=code", { method: "POST", headers: auth });
  const firstBody = await first.json();
  const second = await fetch(baseUrl + "/lookups/shop/_scan?limit=2&sort=code", {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ scrollId: firstBody.scrollId }),
  });
  const secondBody = await second.json();
  return {
    controlled: navigator.serviceWorker.controller !== null,
    token: { status: token.status, tokenType: tokenBody.token_type, accessToken: tokenBody.access_token },
    first: { status: first.status, scrollId: firstBody.scrollId, codes: firstBody.values.map((v) => v.code) },
    second: { status: second.status, codes: secondBody.values.map((v) => v.code) },
    activeTokens: Object.fromEntries(sandbox.control.state().tokens.map((t) => [t.clientId, t.active])),
  };
}
window.__lckitResult = main().catch((error) => ({ error: String(error && error.stack || error) }));
`;

/** What the page script (above) leaves in window.__lckitResult: the answers it got, or the error it met. */
interface PageResult {
  error?: string;
  controlled: boolean;
  token: { status: number; tokenType: string; accessToken: string };
  first: { status: number; scrollId: unknown; codes: string[] };
  second: { status: number; codes: string[] };
  activeTokens: Record<string, number>;
}

describe("lookup-conformance-kit/msw/browser", () => {
  it("bundles for the browser: no Node-only module, no file loader and no listener in its import graph", async () => {
    const result = await build({
      entryPoints: [ENTRY],
      bundle: true,
      platform: "browser",
      format: "esm",
      write: false,
      metafile: true,
      logLevel: "silent",
    });
    expect(result.errors).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((input) => input.startsWith("node:"))).toEqual([]);
    const loaders = ["fixtures.ts", "data-file.ts", "listen.ts", "sandbox.ts", "control-app.ts", "index.ts"];
    expect(inputs.filter((input) => loaders.some((file) => input.endsWith(`src/reference/${file}`)))).toEqual(
      [],
    );
    expect(inputs.some((input) => input.endsWith("src/reference/core.ts"))).toBe(true);
  }, 60_000);

  it("names the missing data in the browser, since a page has no fixture files", async () => {
    const { sandboxHandlers } = await import("../../src/mock/msw-browser.ts");
    await expect(sandboxHandlers({} as never)).rejects.toThrow(/data: required in the browser/);
    await expect(sandboxHandlers({ data: { tenants: [] } as never })).rejects.toThrow(
      /data: \/customers: missing; .*a correct entry of customers looks like \{"id":/,
    );
  });

  describe("in headless Chromium, behind MSW's service worker", () => {
    const chromium = findChromium();
    let server: Server | undefined;
    let browser: Browser | undefined;
    let origin = "";

    beforeAll(async () => {
      if (!chromium) {
        process.stdout.write(
          "msw-browser test: NO CHROMIUM here (scripts/chromium.mjs could not install Debian's chromium); " +
            "the browser bundle is checked, not run in a page\n",
        );
        return;
      }
      const bundle = await build({
        stdin: { contents: PAGE, resolveDir: repo, loader: "js", sourcefile: "page.js" },
        bundle: true,
        platform: "browser",
        format: "iife",
        write: false,
        logLevel: "silent",
        define: { __DATA__: JSON.stringify(data) },
      });
      const files: Record<string, [string, string]> = {
        "/": [
          "text/html",
          '<!doctype html><meta charset="utf-8"><title>msw browser</title><script src="/page.js"></script>',
        ],
        "/page.js": ["text/javascript", bundle.outputFiles[0]?.text ?? ""],
        "/mockServiceWorker.js": ["text/javascript", readFileSync(WORKER, "utf8")],
      };
      server = createServer((request, response) => {
        const file = files[new URL(request.url ?? "/", "http://x").pathname];
        response.writeHead(file ? 200 : 404, { "content-type": file?.[0] ?? "text/plain" });
        response.end(file?.[1] ?? "not served here: the page's requests must be answered by the worker");
      });
      await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const { chromium: driver } = await import("playwright-core");
      browser = await driver.launch({
        executablePath: chromium,
        headless: true,
        args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage"],
      });
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    });

    it("answers a token request with an access token and a scan with two pages of records joined by a scrollId", async () => {
      // A browser test that did not run in a browser is no pass.
      if (!browser) throw new Error(`no Chromium here, so the page was not run: ${NO_CHROMIUM_FIX}`);
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(String(error)));
      await page.goto(`${origin}/`);
      const result = await page.evaluate(
        () => (globalThis as typeof globalThis & { __lckitResult: Promise<PageResult> }).__lckitResult,
      );
      expect(errors).toEqual([]);
      expect(result.error).toBeUndefined();
      expect(result.controlled).toBe(true);
      expect(result.token.status).toBe(200);
      expect(result.token.tokenType).toMatch(/^bearer$/i);
      expect(result.token.accessToken).toMatch(/^[A-Za-z0-9_-]{20,}$/);
      expect(result.first.status).toBe(200);
      expect(typeof result.first.scrollId).toBe("string");
      expect(result.first.codes).toHaveLength(2);
      expect(result.second.status).toBe(200);
      expect(result.second.codes).toHaveLength(2);
      const codes = [...result.first.codes, ...result.second.codes];
      expect(new Set(codes).size).toBe(4);
      expect(codes.sort()).toEqual(data.lookups.map((lookup: { code: string }) => lookup.code).sort());
      // The token is the reference's own: its state counts it for the client that asked, none for the other.
      expect(result.activeTokens).toEqual({ "order-service": 1, "nightly-sync": 0 });
      await page.close();
    }, 120_000);
  });
});
