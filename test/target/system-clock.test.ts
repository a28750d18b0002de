// The live clock: sleeps end with their check's signal, and finished sleeps leave no listener behind.
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { systemClock } from "../../src/target/system-clock.ts";

describe("systemClock", () => {
  it("takes each finished sleep's abort listener off the check's signal", async () => {
    const controller = new AbortController();
    const clock = systemClock();
    for (let i = 0; i < 20; i++) await clock.sleep(0, controller.signal);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("clears the timer of a sleep whose check ended, so nothing keeps the process alive", async () => {
    const controller = new AbortController();
    const clock = systemClock();
    let woke = false;
    void clock.sleep(50, controller.signal).then(() => {
      woke = true;
    });
    controller.abort(new Error("check over"));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(woke).toBe(false);
  });
});
