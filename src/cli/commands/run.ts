// Placeholder until the "run" command lands; replaced by its owner.
import type { Command } from "../main.ts";

export const command: Command = {
  summary: "run",
  async run(_argv, io) {
    io.err("lckit run: this command is not available yet\n");
    return 2;
  },
};
