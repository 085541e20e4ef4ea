// Command petstore-ferretdb is a tiny MongoDB-wire-compatible server for the
// petstore test suite: FerretDB v1 embedded through its public `ferretdb`
// package, backed by the pure-Go SQLite handler, built as a static binary and
// packaged in a FROM-scratch image (see Dockerfile and .ci/build-ferretdb-image.sh).
//
// We embed FerretDB instead of building its own cmd/ferretdb because that
// command expects build-time generated version files and panics when built
// with a plain `go build`/`go install`.
//
// Serialization: FerretDB v1 executes update/findAndModify as
// read-then-write without any lock, so concurrent conditional updates such as
// updateOne({_id, stock: {$gte: 1}}, {$inc: {stock: -1}}) both succeed and
// oversell, where MongoDB's single-document atomicity lets only one win. By
// default FerretDB therefore listens on a private Unix socket and the TCP
// address is served by a small wire-protocol proxy that forwards one
// request/response round trip at a time across all connections (FerretDB
// answers every request with exactly one reply). That makes every command
// atomic, which is stronger than MongoDB but never weaker. --serialize=false
// exposes FerretDB directly.
//
// Duplicate keys: FerretDB v1.24 reports a unique-index violation caused by
// update, replace or findAndModify as code 1 (InternalError) carrying SQLite's
// "UNIQUE constraint failed" text; only inserts get MongoDB's code 11000. The
// proxy rewrites those replies to code 11000 (DuplicateKey), as MongoDB sends.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
	"go.mongodb.org/mongo-driver/bson"
)

// ReadyMessage is printed to stdout once the server accepts connections; the
// test global setup (test/support/mongo-global-setup.ts) waits for this text.
const ReadyMessage = "petstore-ferretdb ready"

const (
	wireHeaderLen  = 16
	wireMaxMsgLen  = 64 << 20 // above MongoDB's 48 MB maxMessageSizeBytes
	roundTripLimit = 2 * time.Minute
)

func envOr(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return def
}

func main() {
	os.Exit(run())
}

func run() int {
	serializeDefault, _ := strconv.ParseBool(envOr("FERRETDB_SERIALIZE", "true"))

	listenAddr := flag.String("listen-addr", envOr("FERRETDB_LISTEN_ADDR", "127.0.0.1:27017"),
		"TCP address to listen on (env FERRETDB_LISTEN_ADDR)")
	dataDir := flag.String("data-dir", envOr("FERRETDB_DATA_DIR", "/data"),
		"directory for the SQLite databases; created if missing (env FERRETDB_DATA_DIR)")
	sqliteURL := flag.String("sqlite-url", envOr("FERRETDB_SQLITE_URL", ""),
		"full SQLite URI, e.g. file:/data/ or file:/data/?mode=memory; overrides --data-dir (env FERRETDB_SQLITE_URL)")
	logLevel := flag.String("log-level", envOr("FERRETDB_LOG_LEVEL", "error"),
		"log level: debug, info, warn or error (env FERRETDB_LOG_LEVEL)")
	serialize := flag.Bool("serialize", serializeDefault,
		"run one command at a time across all connections, for MongoDB-like atomicity (env FERRETDB_SERIALIZE)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "petstore-ferretdb: unexpected arguments %q (only flags are accepted)\n", flag.Args())
		return 2
	}

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(os.Stderr, "petstore-ferretdb: invalid --log-level %q: %v\n", *logLevel, err)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	uri := *sqliteURL
	dir := ""
	if uri == "" {
		var err error
		if dir, err = filepath.Abs(*dataDir); err != nil {
			fmt.Fprintf(os.Stderr, "petstore-ferretdb: bad --data-dir %q: %v\n", *dataDir, err)
			return 2
		}
		// The scratch image has no directories at all: create ours.
		if err = os.MkdirAll(dir, 0o755); err != nil {
			fmt.Fprintf(os.Stderr, "petstore-ferretdb: cannot create data dir %q: %v\n", dir, err)
			return 1
		}
		uri = "file:" + strings.TrimSuffix(dir, "/") + "/"
	}
	// SQLite may spill temporary files to $TMPDIR (or /tmp), which a scratch
	// image lacks; best effort, errors surface later from SQLite itself.
	_ = os.MkdirAll(os.TempDir(), 0o1777)

	listener := ferretdb.ListenerConfig{TCP: *listenAddr}
	var proxyLn net.Listener
	if *serialize {
		// Bind the public address first so a busy port fails fast and clearly.
		var err error
		if proxyLn, err = net.Listen("tcp", *listenAddr); err != nil {
			fmt.Fprintf(os.Stderr, "petstore-ferretdb: cannot listen on %s: %v\n", *listenAddr, err)
			return 1
		}
		defer proxyLn.Close()
		sockDir := dir
		if sockDir == "" {
			sockDir = os.TempDir()
		}
		sock := filepath.Join(sockDir, fmt.Sprintf(".ferretdb-%d.sock", os.Getpid()))
		_ = os.Remove(sock)
		listener = ferretdb.ListenerConfig{Unix: sock}
	}

	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  listener,
		Logger:    logger,
		Handler:   "sqlite",
		SQLiteURL: uri,
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "petstore-ferretdb: failed to start: %v\n", err)
		return 1
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()

	var proxyDone chan struct{}
	if proxyLn != nil {
		p := &serialProxy{upstream: listener.Unix, logger: logger}
		proxyDone = make(chan struct{})
		go func() {
			defer close(proxyDone)
			p.serve(ctx, proxyLn)
		}()
	}

	// ferretdb.New has already bound its listener (clientconn.Listen), and the
	// proxy listener is bound too, so connections are accepted from here on.
	mode := "direct"
	if proxyLn != nil {
		mode = "serialized"
	}
	fmt.Fprintf(os.Stdout, "%s: listening on %s (%s, sqlite %s)\n", ReadyMessage, *listenAddr, mode, uri)

	select {
	case err = <-done:
		// Run returned without a signal: treat as a failure.
		if err == nil {
			err = errors.New("server stopped unexpectedly")
		}
		fmt.Fprintf(os.Stderr, "petstore-ferretdb: %v\n", err)
		return 1
	case <-ctx.Done():
	}

	fmt.Fprintln(os.Stdout, "petstore-ferretdb: signal received, shutting down")
	timeout := time.After(10 * time.Second)
	if proxyDone != nil {
		select {
		case <-proxyDone:
		case <-timeout:
			fmt.Fprintln(os.Stderr, "petstore-ferretdb: proxy shutdown timed out")
			return 1
		}
	}
	select {
	case err = <-done:
		if err != nil {
			fmt.Fprintf(os.Stderr, "petstore-ferretdb: shutdown error: %v\n", err)
			return 1
		}
	case <-timeout:
		fmt.Fprintln(os.Stderr, "petstore-ferretdb: shutdown timed out")
		return 1
	}
	if listener.Unix != "" {
		_ = os.Remove(listener.Unix)
	}
	fmt.Fprintln(os.Stdout, "petstore-ferretdb: stopped")
	return 0
}

// serialProxy forwards MongoDB wire messages from TCP clients to FerretDB's
// Unix socket, one request/response round trip at a time across all
// connections. Each client connection gets its own upstream connection, so
// per-connection state (cursors, sessions) is preserved.
type serialProxy struct {
	upstream string
	logger   *slog.Logger
	mu       sync.Mutex // held for one whole round trip
}

func (p *serialProxy) serve(ctx context.Context, ln net.Listener) {
	go func() {
		<-ctx.Done()
		_ = ln.Close()
	}()

	var wg sync.WaitGroup
	defer wg.Wait()

	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			p.logger.Warn("proxy accept failed", slog.Any("error", err))
			time.Sleep(50 * time.Millisecond)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.handle(ctx, conn)
		}()
	}
}

func (p *serialProxy) handle(ctx context.Context, client net.Conn) {
	defer client.Close()

	up, err := net.DialTimeout("unix", p.upstream, 5*time.Second)
	if err != nil {
		p.logger.Error("proxy cannot reach FerretDB", slog.Any("error", err))
		return
	}
	defer up.Close()

	connDone := make(chan struct{})
	defer close(connDone)
	go func() {
		select {
		case <-ctx.Done():
			_ = client.Close()
			_ = up.Close()
		case <-connDone:
		}
	}()

	clientR := bufio.NewReader(client)
	upR := bufio.NewReader(up)
	for {
		req, err := readWireMessage(clientR)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				p.logger.Debug("proxy: client read", slog.Any("error", err))
			}
			return
		}
		res, err := p.roundTrip(up, upR, req)
		if err != nil {
			p.logger.Warn("proxy: upstream round trip failed", slog.Any("error", err))
			return
		}
		if _, err = client.Write(res); err != nil {
			return
		}
	}
}

func (p *serialProxy) roundTrip(up net.Conn, upR *bufio.Reader, req []byte) ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()

	if err := up.SetDeadline(time.Now().Add(roundTripLimit)); err != nil {
		return nil, err
	}
	if _, err := up.Write(req); err != nil {
		return nil, err
	}
	res, err := readWireMessage(upR)
	if err != nil {
		return nil, err
	}
	return fixDuplicateKeyReply(res, p.logger), up.SetDeadline(time.Time{})
}

const (
	opMsg               = 2013
	codeInternalError   = 1
	codeDuplicateKey    = 11000
	sqliteUniqueFailure = "UNIQUE constraint failed"
)

// sqliteIndexName extracts the MongoDB index name from FerretDB's SQLite index
// name "<collection>_<8 hex>_<index name>".
var sqliteIndexName = regexp.MustCompile(`index '.*?_[0-9a-f]{8}_(.+?)'`)

// fixDuplicateKeyReply turns FerretDB's InternalError replies for unique
// index violations into MongoDB's DuplicateKey (11000) errors, both at the top
// level (findAndModify) and in writeErrors (update). Any other message, or one
// it cannot parse, is returned unchanged.
func fixDuplicateKeyReply(msg []byte, logger *slog.Logger) []byte {
	if !bytes.Contains(msg, []byte(sqliteUniqueFailure)) || len(msg) < wireHeaderLen+5 {
		return msg
	}
	if binary.LittleEndian.Uint32(msg[12:16]) != opMsg {
		return msg
	}
	flags := binary.LittleEndian.Uint32(msg[16:20])
	if flags&1 != 0 || msg[20] != 0 { // checksum present, or not a body section first
		return msg
	}
	body := msg[21:]
	docLen := int(int32(binary.LittleEndian.Uint32(body[:4])))
	if docLen != len(body) { // more than one section: leave it alone
		return msg
	}

	var doc bson.D
	if err := bson.Unmarshal(body, &doc); err != nil {
		return msg
	}
	doc, changed := fixDuplicateKeyError(doc, true)
	for _, e := range doc {
		if e.Key != "writeErrors" {
			continue
		}
		if arr, ok := e.Value.(bson.A); ok {
			for i, we := range arr {
				if d, ok := we.(bson.D); ok {
					if fixed, did := fixDuplicateKeyError(d, false); did {
						arr[i] = fixed
						changed = true
					}
				}
			}
		}
	}
	if !changed {
		return msg
	}
	newBody, err := bson.Marshal(doc)
	if err != nil {
		logger.Warn("proxy: cannot re-encode duplicate key reply", slog.Any("error", err))
		return msg
	}
	out := make([]byte, 0, 21+len(newBody))
	out = append(out, msg[:21]...)
	out = append(out, newBody...)
	binary.LittleEndian.PutUint32(out[:4], uint32(len(out)))
	return out
}

// fixDuplicateKeyError rewrites one error document; it reports whether it did.
func fixDuplicateKeyError(doc bson.D, topLevel bool) (bson.D, bool) {
	codeIdx, msgIdx, nameIdx := -1, -1, -1
	for i, e := range doc {
		switch e.Key {
		case "code":
			codeIdx = i
		case "errmsg":
			msgIdx = i
		case "codeName":
			nameIdx = i
		}
	}
	if codeIdx < 0 || msgIdx < 0 {
		return doc, false
	}
	var code int64
	switch v := doc[codeIdx].Value.(type) {
	case int32:
		code = int64(v)
	case int64:
		code = v
	case float64:
		code = int64(v)
	default:
		return doc, false
	}
	errmsg, _ := doc[msgIdx].Value.(string)
	if code != codeInternalError || !strings.Contains(errmsg, sqliteUniqueFailure) {
		return doc, false
	}
	text := "E11000 duplicate key error"
	if m := sqliteIndexName.FindStringSubmatch(errmsg); m != nil {
		text += " index: " + m[1]
	}
	doc[codeIdx].Value = int32(codeDuplicateKey)
	doc[msgIdx].Value = text
	if nameIdx >= 0 {
		doc[nameIdx].Value = "DuplicateKey"
	} else if topLevel {
		doc = append(doc, bson.E{Key: "codeName", Value: "DuplicateKey"})
	}
	return doc, true
}

// readWireMessage reads one whole MongoDB wire protocol message (header included).
func readWireMessage(r *bufio.Reader) ([]byte, error) {
	var header [wireHeaderLen]byte
	if _, err := io.ReadFull(r, header[:]); err != nil {
		return nil, err
	}
	n := int(int32(binary.LittleEndian.Uint32(header[:4])))
	if n < wireHeaderLen || n > wireMaxMsgLen {
		return nil, fmt.Errorf("invalid wire message length %d", n)
	}
	msg := make([]byte, n)
	copy(msg, header[:])
	if _, err := io.ReadFull(r, msg[wireHeaderLen:]); err != nil {
		return nil, err
	}
	return msg, nil
}
