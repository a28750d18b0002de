// HTTP mechanics shared by both sides of the wire (the reference, the kit's transport, the mock, Pact),
// below every other folder: reading a body within a size limit, the hop-by-hop headers a forwarder drops,
// a free loopback port for a child server.
export { freePort } from "./free-port.ts";
export { forwardedRequestHeaders, HOP_BY_HOP_HEADERS } from "./hop-by-hop.ts";
export { announcedBeyond, joinChunks, type LimitedRead, readWithinLimit } from "./limited-body.ts";
export { retryAfterMs } from "./retry-after.ts";
