// The reconnection loop both AMQP sources share (BrokerStream.reconnect): bounded attempts with a doubling
// wait, the stream woken once connected, a connection the stopped stream no longer wants released, and the
// stream stopped with the source's reason when no attempt connects or an error is the caller's input.
import { describe, expect, it } from "vitest";
import {
  type Backoff,
  BrokerStream,
  type ReconnectSteps,
} from "../../src/events/transport/sources/broker-stream.ts";

const fast: Backoff = { attempts: 4, initialDelayMs: 1, maxDelayMs: 4 };

function steps(failures: number, over: Partial<ReconnectSteps> = {}) {
  const seen = { connects: 0, releases: 0, reconnected: [] as number[] };
  const given: ReconnectSteps = {
    connect: async () => {
      seen.connects += 1;
      if (seen.connects <= failures) throw new Error(`refused ${seen.connects}`);
    },
    release: async () => {
      seen.releases += 1;
    },
    reconnected: (attempt) => seen.reconnected.push(attempt),
    gaveUp: (lastError) => `gave up: ${(lastError as Error).message}`,
    ...over,
  };
  return { seen, given };
}

describe("BrokerStream.reconnect", () => {
  it("tries again after each failure and says on which attempt it connected", async () => {
    const stream = new BrokerStream("a test", {});
    const { seen, given } = steps(2);
    await stream.reconnect(fast, given);
    expect(seen).toEqual({ connects: 3, releases: 0, reconnected: [3] });
    expect(stream.stopReason).toBeUndefined();
  });

  it("stops the stream with the source's reason once every attempt failed", async () => {
    const stream = new BrokerStream("a test", {});
    const { seen, given } = steps(99);
    await stream.reconnect(fast, given);
    expect(seen.connects).toBe(4);
    expect(stream.stopReason).toBe("gave up: refused 4");
    expect(stream.notices().map((n) => n.kind)).toEqual(["stopped"]);
  });

  it("gives up at once on an error the source calls fatal", async () => {
    const stream = new BrokerStream("a test", {});
    const { seen, given } = steps(99, { fatal: () => true });
    await stream.reconnect(fast, given);
    expect(seen.connects).toBe(1);
    expect(stream.stopReason).toBe("gave up: refused 1");
  });

  it("releases a connection made after the stream stopped, and says nothing came back", async () => {
    const stream = new BrokerStream("a test", {});
    const { seen, given } = steps(0, {
      connect: async () => {
        stream.stop("the run ended");
      },
    });
    await stream.reconnect(fast, given);
    expect(seen.releases).toBe(1);
    expect(seen.reconnected).toEqual([]);
    expect(stream.stopReason).toBe("the run ended");
  });
});
