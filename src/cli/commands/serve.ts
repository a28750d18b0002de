// Placeholder until the "serve" command lands; replaced by its owner.
import type { Command } from "../main.ts";

export const command: Command = {
  summary: "serve",
  async run(_argv, io) {
    io.err("lckit serve: this command is not available yet\n");
    return 2;
  },
};
