import { serve } from "h3";
import { loadConfig } from "../../bootstrap/config.ts";
import { createLogger } from "../../bootstrap/logger.ts";
import { composePetstore, type Petstore } from "../../bootstrap/petstore.ts";
import { ADMIN_KEY } from "./test-petstore.ts";

export interface ServedPetstore {
  petstore: Petstore;
  /** http://127.0.0.1:<port> — no trailing slash. */
  origin: string;
  adminKey: string;
  close(): Promise<void>;
}

/** The whole service as main.ts runs it, on a loopback address and an ephemeral port. */
export const servePetstore = async (env: Record<string, string> = {}): Promise<ServedPetstore> => {
  const config = loadConfig({
    PETSTORE_ADMIN_KEY: ADMIN_KEY,
    PETSTORE_SEED_DEMO: "false",
    HOST: "127.0.0.1",
    PORT: "0",
    ...env,
  });
  const petstore = await composePetstore(config, createLogger("silent"));
  const server = serve(petstore.app, { port: 0, hostname: "127.0.0.1", silent: true, gracefulShutdown: false });
  await server.ready();
  const address = server.node?.server?.address();
  const port = typeof address === "object" && address ? address.port : Number(new URL(server.url ?? "").port);
  return {
    petstore,
    origin: `http://127.0.0.1:${port}`,
    adminKey: ADMIN_KEY,
    close: async () => {
      await server.close(true);
      await petstore.close();
    },
  };
};
