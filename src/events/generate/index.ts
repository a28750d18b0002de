// The event generator's public face: the seeded stream world and whole streams with their manifest. What
// other folders (src/pact, src/cli) need from the generator comes from here, not from its inner files.
export { Random } from "./random.ts";
export { generateStream, type StreamDraft } from "./stream.ts";
export { type StreamMutation, streamMutations } from "./stream-mutations.ts";
export type {
  GeneratedStream,
  InvalidEntry,
  PayloadType,
  StreamManifest,
  StreamMessage,
  StreamOptions,
} from "./stream-options.ts";
export { StreamWorld } from "./stream-world.ts";
