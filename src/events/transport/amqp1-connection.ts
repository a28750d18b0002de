// What the AMQP 1.0 source and sink share: the URL (amqp1:// and amqp1s://), connecting with rhea (SASL
// PLAIN with credentials, ANONYMOUS without; TLS for amqp1s://), and errors that name the fix.
//
// Why a scheme of its own: amqp:// and amqps:// name both AMQP 0-9-1 (RabbitMQ's URI spec, which this kit
// reads them as) and AMQP 1.0 (Azure Service Bus, Artemis, Qpid), and the two protocols cannot be told
// apart from the URL. amqp1:// (TCP) and amqp1s:// (TLS) say which protocol is meant.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import rhea, { type Connection, type ConnectionOptions } from "rhea";
import { SourceError } from "./sources/file.ts";

export function isAmqp1Spec(spec: string): boolean {
  return /^amqp1s?:\/\//i.test(spec);
}

export interface Amqp1Endpoint {
  host: string;
  port: number;
  tls: boolean;
  username?: string;
  password?: string;
  /** The address in the URL's path (the first "/" removed, percent-escapes decoded); may be empty. */
  address: string;
  /** The URL without its password, for descriptions and messages. */
  shown: string;
  /** scheme://[user@]host:port, for descriptions. */
  server: string;
}

export function parseAmqp1Url(url: string): Amqp1Endpoint {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SourceError(
      "cannot parse the AMQP 1.0 URL; the form is amqp1://[user:password@]host[:port]/ADDRESS (amqp1s:// for TLS)",
    );
  }
  const tls = parsed.protocol.toLowerCase() === "amqp1s:";
  if (!parsed.hostname)
    throw new SourceError("the AMQP 1.0 URL names no host; e.g. amqp1s://host:5671/queue");
  const shownUrl = new URL(url);
  if (shownUrl.password) shownUrl.password = "***";
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ""),
    port: parsed.port ? Number(parsed.port) : tls ? 5671 : 5672,
    tls,
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    address: decodeURIComponent(parsed.pathname.slice(1)),
    shown: shownUrl.toString(),
    server: `${parsed.protocol}//${parsed.username ? `${parsed.username}@` : ""}${parsed.host}${parsed.port ? "" : `:${tls ? 5671 : 5672}`}`,
  };
}

export interface Amqp1ConnectOptions {
  /** PEM file of the CA that signed the broker's certificate (amqp1s://), beside the system's. */
  caFile?: string;
  /** Connection, SASL and TLS handshake together (default 10 s). */
  timeoutMs?: number;
}

const tlsUnknownCa = new Set([
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_GET_ISSUER_CERT",
  "CERT_UNTRUSTED",
]);

/** An error's words: rhea's errors carry them in description (with a condition), others in message. */
const errorText = (error: unknown): string => {
  if (typeof error === "string") return error;
  const { description, condition, message } = (error ?? {}) as Record<string, unknown>;
  if (typeof description === "string")
    return condition ? `${String(condition)}: ${description}` : description;
  if (typeof message === "string" && message !== "") return message;
  if (typeof condition === "string") return condition;
  return JSON.stringify(error);
};

/** A connection failure as a sentence that says what to do; SourceError when the caller's input is wrong. */
export function connectionFailure(endpoint: Amqp1Endpoint, error: unknown): Error {
  const code = (error as { code?: string } | undefined)?.code;
  const condition = (error as { condition?: string } | undefined)?.condition;
  const where = `${endpoint.host}:${endpoint.port}`;
  if (code && tlsUnknownCa.has(code))
    return new SourceError(
      `TLS to ${where}: the broker's certificate is not signed by a CA this machine trusts (${code}). ` +
        "Pass --ca FILE.pem with the CA that signed it (or set NODE_EXTRA_CA_CERTS)",
    );
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID")
    return new SourceError(
      `TLS to ${where}: the broker's certificate is not made out to ${endpoint.host} (${errorText(error)}); ` +
        "connect by the name in the certificate",
    );
  if (code === "ECONNREFUSED")
    return new Error(
      `nothing accepts connections at ${where}: is the broker running, and is this its AMQP 1.0 port (5672, or 5671 for amqp1s://)?`,
    );
  if (code === "ECONNRESET" && endpoint.tls === false)
    return new Error(
      `${where} closed the connection during the handshake (${errorText(error)}); if the broker wants TLS use amqp1s://`,
    );
  if (/Unsupported AMQP version: 0-9-1/i.test(errorText(error)))
    return new SourceError(
      `${where} speaks AMQP 0-9-1, not 1.0: read it with an amqp:// URL (--exchange), or enable AMQP 1.0 on ` +
        "the broker (RabbitMQ 3: rabbitmq-plugins enable rabbitmq_amqp1_0)",
    );
  if (condition === "amqp:unauthorized-access" || /authenticat|sasl/i.test(errorText(error)))
    return new SourceError(
      `the broker at ${where} refused the credentials (${errorText(error)}). Check the user name and password in the URL ` +
        "(Azure Service Bus: the SAS policy name and key, URL-encoded); without credentials the kit offers SASL ANONYMOUS",
    );
  return new Error(`could not connect to ${endpoint.shown} over AMQP 1.0: ${errorText(error)}`);
}

/** Opens a connection and resolves when the broker has opened it (SASL and TLS done). */
export function connectAmqp1(
  endpoint: Amqp1Endpoint,
  options: Amqp1ConnectOptions = {},
): Promise<Connection> {
  const container = rhea.create_container({ id: `lckit-${randomBytes(6).toString("hex")}` });
  const connectionOptions: ConnectionOptions & Record<string, unknown> = {
    host: endpoint.host,
    port: endpoint.port,
    hostname: endpoint.host,
    reconnect: false,
    // A dead peer is noticed within seconds (AMQP 1.0 idle time-out: the peer sends empty frames at half of it).
    idle_time_out: 10_000,
    // Credentials: SASL PLAIN; none: SASL ANONYMOUS (rhea uses ANONYMOUS for a user name without password).
    username: endpoint.username ?? "anonymous",
    ...(endpoint.password === undefined ? {} : { password: endpoint.password }),
  };
  if (endpoint.tls) {
    Object.assign(connectionOptions, {
      transport: "tls",
      servername: endpoint.host,
      rejectUnauthorized: true,
      ...(options.caFile === undefined ? {} : { ca: readCa(options.caFile) }),
    });
  }
  return new Promise((resolve, reject) => {
    let settled = false;
    const connection = container.connect(connectionOptions as ConnectionOptions);
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      connection.close();
      (connection as unknown as { socket?: { destroy(): void } }).socket?.destroy();
      reject(connectionFailure(endpoint, error));
    };
    const timer = setTimeout(
      () => fail(new Error(`no AMQP 1.0 open from the broker within ${options.timeoutMs ?? 10_000} ms`)),
      options.timeoutMs ?? 10_000,
    );
    connection.once("connection_open", () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(connection);
    });
    connection.on("connection_error", (context) =>
      fail(context.error ?? context.connection.error ?? "the broker closed the connection"),
    );
    connection.on("disconnected", (context) => fail(context.error ?? "disconnected"));
    // Unhandled, rhea would throw these; they are handled by the listeners above or by the user of the link.
    connection.on("error", () => {});
  });
}

function readCa(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new SourceError(
      `--ca ${file}: cannot read it (${errorText(error)}); give the PEM file of the broker's CA`,
    );
  }
}

/** Waits for a link to open; rejects with the broker's reason when it refuses the link. */
export function linkOpened(
  link: { once(event: string, listener: (context: never) => void): void; is_open(): boolean },
  opened: string,
  refused: string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    link.once(opened, () => resolve());
    link.once(refused, (context: { receiver?: { error?: unknown }; sender?: { error?: unknown } }) =>
      reject((context.receiver ?? context.sender)?.error ?? new Error("the broker closed the link")),
    );
  });
}

export { errorText };
