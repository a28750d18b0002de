// A loopback port for a child server that takes a port number rather than 0 (Prism): the kernel hands one
// out, and it is free again once returned. Another process could take it in between; callers that start
// a server on it report that as a start failure.
import { createServer } from "node:net";

/** A port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
