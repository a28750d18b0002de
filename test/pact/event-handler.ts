// The message handler of the event consumer under test: it accepts an event only when the kit's event
// checker finds no error in it, and hands on what the consumer uses (type, object URI, version).
import { checkMessage } from "../../src/events/index.ts";

export interface HandledEvent {
  type: string;
  uri: string;
  tenantId: string;
}

export function handleEvent(payload: unknown, metadata: Record<string, unknown> = {}): HandledEvent {
  const headers = Object.fromEntries(
    Object.entries(metadata).filter(([name]) => !/^content-?type$/i.test(name)),
  );
  const problems = checkMessage({ position: "pact message", headers, body: JSON.stringify(payload) }).filter(
    (problem) => problem.evidence.severity === "error",
  );
  if (problems.length > 0)
    throw new Error(
      `event rejected: ${problems.map((p) => `${p.evidence.instancePath || "/"} ${p.message} (${p.requirement})`).join("; ")}`,
    );
  return {
    type: String((payload as { type?: unknown }).type),
    uri: String(headers.sourceObjectUri),
    tenantId: String(headers.tenantId),
  };
}
