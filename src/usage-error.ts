// Problems the user can fix. Their own file below every folder, so that any layer (an optional tool that is
// not installed, a source that cannot be opened, a command not given) can say "your input" without
// importing the CLI; src/cli/main.ts turns every UserInputError into exit 2, in one place.

/** A problem the user can fix (usage, configuration, an input that cannot be read or reached): the CLI prints
 *  the message, which names what is wrong and the fix, and exits with code 2. Every such error class of the
 *  kit extends it. */
export class UserInputError extends Error {
  override name = "UserInputError";
}

/** A usage or configuration problem of the command line itself (a flag, its value, a missing argument). */
export class UsageError extends UserInputError {
  override name = "UsageError";
}
