// A usage or configuration problem. Its own file below every folder, so that a lower layer (an optional tool
// that is not installed) can say "usage problem" without importing the CLI; the CLI maps it to exit code 2.

/** A usage or configuration problem: the CLI prints the message and exits with code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}
