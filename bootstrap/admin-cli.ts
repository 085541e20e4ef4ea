// `npm run admin -- <command>`: manages API keys on the configured store (the same settings as the service).
import { isDomainError } from "../core/shared/domain-error.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { createLogger } from "./logger.ts";
import { adminUsage, parseAdminCommand, runAdminCommand, UsageError, type AdminCommand } from "./admin-commands.ts";

/** One line on stderr and the exit code: 2 for a command line or setting that cannot run, 1 for a refusal or failure. */
const fail = (code: 1 | 2, message: string): never => {
  process.stderr.write(`admin: ${message.split("\n")[0]}\n`);
  process.exit(code);
};

const argv = process.argv.slice(2);
if (argv.length === 0 || argv[0] === "help" || argv[0] === "--help") {
  process.stdout.write(`${adminUsage}\n`);
  process.exit(argv.length === 0 ? 2 : 0);
}

let command: AdminCommand;
try {
  command = parseAdminCommand(argv);
} catch (error) {
  fail(error instanceof UsageError ? 2 : 1, error instanceof Error ? error.message : String(error));
}

let config;
try {
  config = loadConfig(process.env);
} catch (error) {
  fail(2, error instanceof ConfigError ? error.message : String(error));
}
if (config!.store.kind === "memory") {
  fail(
    2,
    "PETSTORE_STORE is memory: the keys live inside the running service, so there is nothing to administer offline (use the /admin API, or set PETSTORE_STORE=mongo and MONGODB_URL)",
  );
}

// Loaded once the command line and settings are known to be good: a refusal comes quickly.
const { openStores } = await import("./petstore.ts");
const { buildContainer } = await import("./container.ts");
const { tokens } = await import("./tokens.ts");
const stores = await openStores(config!).catch((error: unknown) =>
  fail(1, `cannot reach the store: ${error instanceof Error ? error.message : String(error)}`),
);
let exitCode = 0;
try {
  const container = buildContainer(config!, stores, createLogger("silent"));
  const lines = await runAdminCommand(command!, container.get(tokens.useCases), container.get(tokens.clock));
  process.stdout.write(lines.map((l) => `${l}\n`).join(""));
} catch (error) {
  exitCode = 1;
  const message = isDomainError(error)
    ? `${error.code}: ${error.message}`
    : error instanceof Error
      ? error.message
      : String(error);
  process.stderr.write(`admin: ${message.split("\n")[0]}\n`);
} finally {
  await stores.close().catch(() => undefined);
}
process.exit(exitCode);
