// Reads pact files (Pact specification V2, V3 and V4 JSON) into one shape: HTTP interactions and messages
// with their example values, as the contract check and the verifier's safety planning need them.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { UserInputError } from "../usage-error.ts";

/** A body as the pact holds it: the content (parsed JSON, or text) and its media type. */
export interface PactBody {
  contentType?: string;
  content: unknown;
  /** "base64" when content is base64 text of the raw bytes. */
  encoded: false | string;
}

export interface PactHttpInteraction {
  kind: "http";
  description: string;
  states: string[];
  request: {
    method: string;
    path: string;
    query: Record<string, string[]>;
    /** Lower-case header names. */
    headers: Record<string, string[]>;
    body?: PactBody;
  };
  response: { status: number; headers: Record<string, string[]>; body?: PactBody };
}

export interface PactMessageInteraction {
  kind: "message";
  description: string;
  states: string[];
  contents?: PactBody;
  metadata: Record<string, unknown>;
}

/** An interaction type the kit does not check (synchronous messages, plugins). */
export interface PactOtherInteraction {
  kind: "other";
  description: string;
  states: string[];
  type: string;
}

export type PactInteraction = PactHttpInteraction | PactMessageInteraction | PactOtherInteraction;

export interface PactFile {
  /** As given (relative to the working directory) or found in a directory. */
  file: string;
  consumer: string;
  provider: string;
  specification: string;
  interactions: PactInteraction[];
}

/** A file that is not a readable pact: the CLI reports it as a usage error (exit 2). */
export class PactFileError extends UserInputError {
  override name = "PactFileError";
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`${file}: ${problem}`);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function text(value: unknown, fallback = ""): string {
  return typeof value === "string" ? value : fallback;
}

/** The pact files named by `paths`: files as given, directories by their *.json files (sorted). */
export function findPactFiles(paths: readonly string[], cwd: string): string[] {
  const files: string[] = [];
  for (const path of paths) {
    const absolute = resolve(cwd, path);
    let isDirectory: boolean;
    try {
      isDirectory = statSync(absolute).isDirectory();
    } catch {
      throw new PactFileError(path, "no such file or directory; pass pact files or directories holding them");
    }
    if (!isDirectory) {
      files.push(path);
      continue;
    }
    const found = readdirSync(absolute)
      .filter((name) => name.endsWith(".json"))
      .sort()
      .map((name) => join(path, name));
    files.push(...found);
  }
  return files;
}

export function readPactFile(file: string, cwd: string): PactFile {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(resolve(cwd, file), "utf8"));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new PactFileError(file, `cannot be read as JSON (${reason})`);
  }
  return parsePact(data, file);
}

export function parsePact(data: unknown, file: string): PactFile {
  if (!isRecord(data) || !isRecord(data.consumer) || !isRecord(data.provider)) {
    throw new PactFileError(
      file,
      "is not a pact file: expected an object with consumer.name and provider.name",
    );
  }
  const metadata = isRecord(data.metadata) ? data.metadata : {};
  const spec =
    metadata.pactSpecification ?? metadata["pact-specification"] ?? metadata.pactSpecificationVersion;
  const specification = isRecord(spec) ? text(spec.version, "2.0.0") : text(spec, "2.0.0");
  const v4 = specification.startsWith("4");
  const interactions: PactInteraction[] = [];
  const list = Array.isArray(data.interactions) ? data.interactions : [];
  list.forEach((raw, index) => {
    if (!isRecord(raw)) throw new PactFileError(file, `interactions[${index}] is not an object`);
    interactions.push(v4 ? fromV4(raw, file, index) : http(raw, file, index, false));
  });
  if (Array.isArray(data.messages)) {
    data.messages.forEach((raw, index) => {
      if (!isRecord(raw)) throw new PactFileError(file, `messages[${index}] is not an object`);
      interactions.push(fromV3Message(raw));
    });
  }
  return {
    file,
    consumer: text(data.consumer.name),
    provider: text(data.provider.name),
    specification,
    interactions,
  };
}

function statesOf(raw: Record<string, unknown>): string[] {
  if (Array.isArray(raw.providerStates))
    return raw.providerStates.flatMap((state) =>
      isRecord(state) && typeof state.name === "string" ? [state.name] : [],
    );
  return typeof raw.providerState === "string" ? [raw.providerState] : [];
}

function headersOf(raw: unknown): Record<string, string[]> {
  const headers: Record<string, string[]> = {};
  if (!isRecord(raw)) return headers;
  for (const [name, value] of Object.entries(raw)) {
    const values = Array.isArray(value) ? value.map(String) : [String(value)];
    // V3 joins repeated values with commas; a comma inside one value is rare enough to keep whole.
    headers[name.toLowerCase()] = [...(headers[name.toLowerCase()] ?? []), ...values];
  }
  return headers;
}

function queryOf(raw: unknown): Record<string, string[]> {
  if (typeof raw === "string") {
    const query: Record<string, string[]> = {};
    for (const [name, value] of new URLSearchParams(raw)) query[name] = [...(query[name] ?? []), value];
    return query;
  }
  const query: Record<string, string[]> = {};
  if (!isRecord(raw)) return query;
  for (const [name, value] of Object.entries(raw))
    query[name] = Array.isArray(value) ? value.map(String) : [String(value)];
  return query;
}

/** V4 bodies are {content, contentType, encoded}; V2/V3 bodies are the value itself. */
function bodyOf(raw: unknown, headers: Record<string, string[]>, v4: boolean): PactBody | undefined {
  const headerType = headers["content-type"]?.[0];
  if (v4) {
    if (!isRecord(raw) || !("content" in raw)) return undefined;
    const encoded = raw.encoded === false || raw.encoded === undefined ? false : String(raw.encoded);
    return { contentType: text(raw.contentType) || headerType, content: raw.content, encoded };
  }
  if (raw === undefined) return undefined;
  return {
    contentType: headerType ?? (typeof raw === "string" ? "text/plain" : "application/json"),
    content: raw,
    encoded: false,
  };
}

function http(raw: Record<string, unknown>, file: string, index: number, v4: boolean): PactHttpInteraction {
  const request = isRecord(raw.request) ? raw.request : undefined;
  const response = isRecord(raw.response) ? raw.response : undefined;
  const description = text(raw.description, `interactions[${index}]`);
  if (!request || !response) throw new PactFileError(file, `"${description}" has no request or no response`);
  const requestHeaders = headersOf(request.headers);
  const responseHeaders = headersOf(response.headers);
  const requestBody = bodyOf(request.body, requestHeaders, v4);
  const responseBody = bodyOf(response.body, responseHeaders, v4);
  return {
    kind: "http",
    description,
    states: statesOf(raw),
    request: {
      method: text(request.method, "GET").toUpperCase(),
      path: text(request.path, "/"),
      query: queryOf(request.query),
      headers: requestHeaders,
      ...(requestBody ? { body: requestBody } : {}),
    },
    response: {
      status: typeof response.status === "number" ? response.status : 200,
      headers: responseHeaders,
      ...(responseBody ? { body: responseBody } : {}),
    },
  };
}

function fromV3Message(raw: Record<string, unknown>): PactMessageInteraction {
  const metadata = isRecord(raw.metadata) ? raw.metadata : {};
  const contentType = text(metadata.contentType ?? metadata["content-type"] ?? metadata["Content-Type"]);
  return {
    kind: "message",
    description: text(raw.description),
    states: statesOf(raw),
    ...(raw.contents === undefined
      ? {}
      : {
          contents: { contentType: contentType || "application/json", content: raw.contents, encoded: false },
        }),
    metadata,
  };
}

function fromV4(raw: Record<string, unknown>, file: string, index: number): PactInteraction {
  const type = text(raw.type, "Synchronous/HTTP");
  if (type === "Synchronous/HTTP") return http(raw, file, index, true);
  const description = text(raw.description, `interactions[${index}]`);
  if (type === "Asynchronous/Messages") {
    const metadata = isRecord(raw.metadata) ? raw.metadata : {};
    const contents = bodyOf(raw.contents, {}, true);
    return {
      kind: "message",
      description,
      states: statesOf(raw),
      ...(contents ? { contents } : {}),
      metadata,
    };
  }
  return { kind: "other", description, states: statesOf(raw), type };
}

/** The body as bytes or text for a validator: JSON re-serialized, base64 decoded, text kept. */
export function bodyText(body: PactBody): string | Uint8Array {
  if (body.encoded && typeof body.content === "string") return Buffer.from(body.content, "base64");
  if (typeof body.content === "string" && !isJsonType(body.contentType)) return body.content;
  return JSON.stringify(body.content);
}

export function isJsonType(contentType: string | undefined): boolean {
  const essence = (contentType ?? "application/json").split(";")[0]?.trim().toLowerCase() ?? "";
  return essence === "application/json" || essence.endsWith("+json");
}
