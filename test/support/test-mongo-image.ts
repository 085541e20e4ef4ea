/**
 * The MongoDB test image built by .ci/build-test-mongo-image.sh: FerretDB v2 on PostgreSQL 18 + DocumentDB.
 * `docker run --network host -e PORT=NNNN` serves the wire protocol on 127.0.0.1:NNNN and prints the ready line.
 */

/** The script tags every build with its input hash and as `latest`: this is the newest build. */
export const TEST_MONGO_IMAGE = "petstore/test-mongo:latest";

/** Printed by docker/test-mongo/main.go once FerretDB accepts connections. */
export const TEST_MONGO_READY_LOG = /petstore-test-mongo ready/;

/** How the image is told its port: the environment, not a command (the entry point starts PostgreSQL first). */
export const testMongoEnvironment = (port: number): Record<string, string> => ({ PORT: String(port) });
