// Command petstore-test-mongo is the MongoDB-wire-compatible server of the
// petstore test image: FerretDB v2 embedded through its public `ferretdb`
// package, in front of the PostgreSQL + DocumentDB that runs in the same
// container (see .ci/build-test-mongo-image.sh and entrypoint.sh).
//
// We embed FerretDB instead of building its cmd/ferretdb because that command
// expects build-time generated version files. Unlike the FerretDB 1.24 image
// this replaces, there is no serialising proxy: commands run concurrently in
// PostgreSQL, as they do in MongoDB.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/v2/ferretdb"
)

// ReadyMessage is printed to stdout once the server accepts connections; the
// test global setup (test/support/mongo-global-setup.ts) waits for this text.
const ReadyMessage = "petstore-test-mongo ready"

func main() {
	os.Exit(run())
}

func run() int {
	listenAddr := flag.String("listen-addr", "127.0.0.1:27017", "TCP address of the MongoDB wire protocol")
	postgresURL := flag.String("postgresql-url", "postgres://postgres@/postgres?host=/var/run/postgresql",
		"PostgreSQL (with the DocumentDB extension) to use")
	stateDir := flag.String("state-dir", "/var/lib/petstore-test-mongo", "FerretDB's state directory")
	debug := flag.Bool("debug", false, "log at debug level")
	flag.Parse()

	if err := os.MkdirAll(*stateDir, 0o700); err != nil {
		fmt.Fprintf(os.Stderr, "petstore-test-mongo: %v\n", err)
		return 1
	}

	level := slog.LevelWarn
	if *debug {
		level = slog.LevelDebug
	}
	telemetry := false
	f, err := ferretdb.New(&ferretdb.Config{
		PostgreSQLURL: *postgresURL,
		ListenAddr:    *listenAddr,
		StateDir:      *stateDir,
		LogLevel:      level,
		LogOutput:     os.Stderr,
		Telemetry:     &telemetry,
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "petstore-test-mongo: %v\n", err)
		return 1
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	done := make(chan struct{})
	go func() {
		defer close(done)
		f.Run(ctx)
	}()

	if !waitListening(ctx, *listenAddr, done) {
		<-done
		fmt.Fprintln(os.Stderr, "petstore-test-mongo: FerretDB stopped before it accepted connections")
		return 1
	}
	fmt.Fprintf(os.Stdout, "%s: listening on %s\n", ReadyMessage, *listenAddr)

	<-ctx.Done()
	// FerretDB gives connected clients a few seconds to disconnect; a stopping mongod closes them at once, and
	// tests that stop the database expect that. The data is PostgreSQL's, which the entry point stops next.
	select {
	case <-done:
	case <-time.After(shutdownGrace):
	}
	fmt.Fprintln(os.Stdout, "petstore-test-mongo: stopped")
	return 0
}

const shutdownGrace = 500 * time.Millisecond

// waitListening dials addr until it accepts a connection, FerretDB stops, or ctx ends.
func waitListening(ctx context.Context, addr string, done <-chan struct{}) bool {
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = conn.Close()
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-done:
			return false
		case <-time.After(50 * time.Millisecond):
		}
	}
}
