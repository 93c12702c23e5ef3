package weaviate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"slices"
	"strconv"
	"syscall"
	"time"
)

// Version is the Weaviate release the kind is written and tested against
// (the fusion formulas of backend/fusion are read from its source).
const Version = "v1.35.2"

// ExactBM25Env is the setting StartServer gives every server it starts:
// classes created on it keep their searchable properties in the map
// index, whose WAND search bounds each term by its IDF and so returns the
// exact BM25 top k at any limit. Weaviate's default since v1.30, BlockMax
// WAND, bounds each block of a posting list by the (tf, length) pair that
// scored highest under the average property length and BM25 settings of
// the flush or compaction that wrote the segment, then scores that pair
// with the query-time average and settings; when those differ the bound
// can fall below the score of a document in the block, and whether the
// block is skipped depends on the heap's threshold, that is on the limit
// (BM25Searcher.wandBlock, createBlocks and
// SegmentBlockMax.computeCurrentBlockImpact in v1.35.2). On SciFact a
// document ranked 2nd at limits 5 and 200 was missing at limit 100, and
// 24 of 300 queries had another top 90 at limit 100 than at 1000.
const ExactBM25Env = "USE_INVERTED_SEARCHABLE=false"

// ServerOptions start a local weaviate-server.
type ServerOptions struct {
	// Bin is the weaviate-server executable.
	Bin string
	// DataDir is PERSISTENCE_DATA_PATH; it survives restarts.
	DataDir string
	// MaxResults is QUERY_HYBRID_MAXIMUM_RESULTS, the candidate depth of
	// each leg of a hybrid query (0: Weaviate's default, 100).
	MaxResults int
	// Log receives the server's output (nil: discarded).
	Log io.Writer
	// StartTimeout bounds the wait for readiness (0: 2 minutes).
	StartTimeout time.Duration
	// Environ is the environment the server starts from (the command
	// layer passes tune's own, os.Environ()); the kind's settings follow.
	Environ []string
	// Env adds NAME=value settings to the server's environment after the
	// kind's own (e.g. PERSISTENCE_MEMTABLES_FLUSH_DIRTY_AFTER_SECONDS).
	Env []string
}

// Server is a running weaviate-server on loopback ports.
type Server struct {
	// URL is the REST root, http://127.0.0.1:<port>.
	URL  string
	opts ServerOptions
	cmd  *exec.Cmd
	done chan error
}

// StartServer starts weaviate-server with bring-your-own vectors
// (DEFAULT_VECTORIZER_MODULE=none, no modules), anonymous access, no
// telemetry, every port (REST, gRPC, gossip, data, Raft, profiling) a free
// loopback port, and waits for GET /v1/.well-known/ready.
func StartServer(ctx context.Context, o ServerOptions) (*Server, error) {
	if o.StartTimeout <= 0 {
		o.StartTimeout = 2 * time.Minute
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ { // a probed port can be taken before use
		s, err := startOnce(ctx, o)
		if err == nil {
			return s, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, lastErr
}

func startOnce(ctx context.Context, o ServerOptions) (*Server, error) {
	ports, err := freePorts(8)
	if err != nil {
		return nil, err
	}
	env := append(slices.Clip(o.Environ),
		"PERSISTENCE_DATA_PATH="+o.DataDir,
		"DEFAULT_VECTORIZER_MODULE=none",
		"ENABLE_MODULES=",
		"AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true",
		"DISABLE_TELEMETRY=true",
		"LOG_LEVEL=warning",
		"CLUSTER_HOSTNAME=node1",
		"CLUSTER_BIND_ADDR=127.0.0.1",
		"CLUSTER_ADVERTISE_ADDR=127.0.0.1",
		"CLUSTER_GOSSIP_BIND_PORT="+strconv.Itoa(ports[1]),
		"CLUSTER_DATA_BIND_PORT="+strconv.Itoa(ports[2]),
		"RAFT_PORT="+strconv.Itoa(ports[3]),
		"RAFT_INTERNAL_RPC_PORT="+strconv.Itoa(ports[4]),
		"RAFT_JOIN=node1:"+strconv.Itoa(ports[4]),
		"RAFT_BOOTSTRAP_EXPECT=1",
		"GRPC_PORT="+strconv.Itoa(ports[5]),
		"GO_PROFILING_PORT="+strconv.Itoa(ports[6]),
		"PROMETHEUS_MONITORING_PORT="+strconv.Itoa(ports[7]),
		"GOMAXPROCS=2",
		// Classes on the exact inverted index (see ExactBM25Env).
		ExactBM25Env,
	)
	if o.MaxResults > 0 {
		env = append(env, "QUERY_HYBRID_MAXIMUM_RESULTS="+strconv.Itoa(o.MaxResults))
	}
	env = append(env, o.Env...)
	cmd := exec.Command(o.Bin, "--host", "127.0.0.1", "--port", strconv.Itoa(ports[0]), "--scheme", "http")
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = o.Log, o.Log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("weaviate: start %s: %w", o.Bin, err)
	}
	s := &Server{URL: "http://127.0.0.1:" + strconv.Itoa(ports[0]), opts: o, cmd: cmd, done: make(chan error, 1)}
	go func() { s.done <- cmd.Wait() }()
	c := NewClient(s.URL)
	deadline := time.Now().Add(o.StartTimeout)
	for {
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := c.Ready(rctx)
		cancel()
		if err == nil {
			return s, nil
		}
		select {
		case werr := <-s.done:
			s.done <- werr
			return nil, fmt.Errorf("weaviate: server exited before ready: %v", werr)
		case <-ctx.Done():
			_ = s.Stop()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = s.Stop()
			return nil, fmt.Errorf("weaviate: not ready after %v: %w", o.StartTimeout, err)
		}
	}
}

// Stop ends the server: SIGTERM to its process group, SIGKILL after 20 s.
// The data directory stays.
func (s *Server) Stop() error {
	if s == nil || s.cmd == nil || s.cmd.Process == nil {
		return nil
	}
	pid := s.cmd.Process.Pid
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case err := <-s.done:
		s.done <- err
	case <-time.After(20 * time.Second):
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		err := <-s.done
		s.done <- err
	}
	return nil
}

// Restart stops the server and starts it again on the same data with
// maxResults as QUERY_HYBRID_MAXIMUM_RESULTS; the URL may change.
func (s *Server) Restart(ctx context.Context, maxResults int) error {
	if err := s.Stop(); err != nil {
		return err
	}
	o := s.opts
	o.MaxResults = maxResults
	ns, err := StartServer(ctx, o)
	if err != nil {
		return err
	}
	*s = *ns
	return nil
}

// Exited reports whether the server process has ended.
func (s *Server) Exited() bool {
	select {
	case err := <-s.done:
		s.done <- err
		return true
	default:
		return false
	}
}

// ErrNoBinary marks a weaviate-server that cannot be found.
var ErrNoBinary = errors.New("weaviate-server not found")

func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	ports := make([]int, n)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("weaviate: free port: %w", err)
		}
		ls = append(ls, l)
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	return ports, nil
}
