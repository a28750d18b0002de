// Placeholder until the "events" command lands; replaced by its owner.
import type { Command } from "../main.ts";

export const command: Command = {
  summary: "events",
  async run(_argv, io) {
    io.err("lckit events: this command is not available yet\n");
    return 2;
  },
};
