// Imported first by test files that keep a core busy for long and wait on no real clock (embedded runs with
// a driven clock, installs, compilers). Their worker process, and the processes it starts, run at a lower
// priority, so that the files that do wait on real time (live targets, token validity, brokers) get a core
// when they need one and their timing is not skewed by the suite's own load.
import { setPriority } from "node:os";

try {
  setPriority(10);
} catch {
  // Lowering one's own priority is always allowed on Linux; elsewhere the file just runs at normal priority.
}
