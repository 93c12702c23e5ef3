package rerank

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// CacheFile is the name of the cache's file in a cache directory.
const CacheFile = "rerank-scores.jsonl"

// Cache holds reranker scores on disk, one JSON line per (model, query,
// document text): {"key": sha256 hex, "score": number}. Lines are only
// appended, each batch in one write to a file opened for appending, so
// that the engine's processes and the tuner may share one file; a last
// line cut short by a crash is ignored. A Cache is safe for concurrent
// use.
type Cache struct {
	mu     sync.Mutex
	path   string
	f      *os.File
	scores map[string]float64
}

// Key returns the cache key of a (model, query, document) triple.
func Key(model, query, doc string) string {
	h := sha256.New()
	for _, s := range [...]string{model, query, doc} {
		h.Write([]byte(strconv.Itoa(len(s))))
		h.Write([]byte{0})
		h.Write([]byte(s))
	}
	return hex.EncodeToString(h.Sum(nil))
}

type cacheLine struct {
	Key   string  `json:"key"`
	Score float64 `json:"score"`
}

// OpenCache opens (creating it and its directory when missing) the cache
// file of dir and reads what it holds.
func OpenCache(dir string) (*Cache, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("rerank cache: %w", err)
	}
	path := filepath.Join(dir, CacheFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("rerank cache: %w", err)
	}
	c := &Cache{path: path, f: f, scores: map[string]float64{}}
	if err := c.load(); err != nil {
		f.Close()
		return nil, err
	}
	return c, nil
}

// load reads every complete line of the file.
func (c *Cache) load() error {
	r := bufio.NewReader(c.f)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return nil // a last line without its newline was cut short
		}
		if err != nil {
			return fmt.Errorf("rerank cache: %s: %w", c.path, err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var l cacheLine
		if err := json.Unmarshal(line, &l); err != nil || len(l.Key) != sha256.Size*2 {
			return fmt.Errorf("rerank cache: %s:%d: not a cache line (want {\"key\": sha256 hex, \"score\": number}); delete the file to start over", c.path, n)
		}
		c.scores[l.Key] = l.Score
	}
}

// Get returns the cached score under key (Key).
func (c *Cache) Get(key string) (float64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.scores[key]
	return s, ok
}

// Len returns the number of cached scores.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.scores)
}

// Put stores scores by key, appending them to the file in one write.
func (c *Cache) Put(scores map[string]float64) error {
	if len(scores) == 0 {
		return nil
	}
	var buf []byte
	for k, s := range scores {
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return fmt.Errorf("rerank cache: score of %s not finite", k)
		}
		buf = append(buf, `{"key":"`...)
		buf = append(buf, k...)
		buf = append(buf, `","score":`...)
		buf = strconv.AppendFloat(buf, s, 'g', -1, 64)
		buf = append(buf, "}\n"...)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := c.f.Write(buf); err != nil {
		return fmt.Errorf("rerank cache: %w", err)
	}
	for k, s := range scores {
		c.scores[k] = s
	}
	return nil
}

// Close closes the file.
func (c *Cache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.f.Close()
}
