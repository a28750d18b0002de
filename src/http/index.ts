// HTTP mechanics shared by both sides of the wire (the reference, the kit's transport, the mock, Pact),
// below every other folder: reading a body within a size limit, the hop-by-hop headers a forwarder drops.
export { forwardedRequestHeaders, HOP_BY_HOP_HEADERS } from "./hop-by-hop.ts";
export { announcedBeyond, joinChunks, type LimitedRead, readWithinLimit } from "./limited-body.ts";
