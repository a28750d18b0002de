// Vitest configuration of the mutation oracle only (npm run mutation); `npm test` never picks it up.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/mutation/**/*.mutation.ts"],
    testTimeout: 60_000,
    pool: "forks",
  },
});
