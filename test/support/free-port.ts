import net from "node:net";

/** A TCP port on 127.0.0.1 that nothing listens on right now (for a server started with host networking). */
export const freeLoopbackPort = (): Promise<number> =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once("error", reject);
    server.listen({ host: "127.0.0.1", port: 0, exclusive: true }, () => {
      const address = server.address();
      if (address === null || typeof address === "string") {
        server.close(() => reject(new Error("could not determine a free loopback port")));
        return;
      }
      server.close(() => resolve(address.port));
    });
  });
