// Placeholder until the "pact" command lands; replaced by its owner.
import type { Command } from "../main.ts";

export const command: Command = {
  summary: "pact",
  async run(_argv, io) {
    io.err("lckit pact: this command is not available yet\n");
    return 2;
  },
};
