// Placeholder until the "mock" command lands; replaced by its owner.
import type { Command } from "../main.ts";

export const command: Command = {
  summary: "mock",
  async run(_argv, io) {
    io.err("lckit mock: this command is not available yet\n");
    return 2;
  },
};
