// The event generator's public face: the seeded stream world and whole streams with their manifest. What
// other folders (src/pact, src/cli) need from the generator comes from here, not from its inner files.
export {
  type GeneratedStream,
  generateStream,
  type PayloadType,
  Random,
  type StreamDraft,
  type StreamManifest,
  type StreamOptions,
  StreamWorld,
} from "./stream.ts";
