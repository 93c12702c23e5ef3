package corpus

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"

	"github.com/fusiontune/fusiontune/internal/atomicfile"
	"github.com/fusiontune/fusiontune/internal/userfile"
)

// Hash returns the Hash Load gives the corpus c describes. A
// JSON-lines corpus is hashed from its bytes without being parsed (it is
// not checked either); a folder is loaded.
func Hash(c Config) (string, error) {
	if !c.jsonLines() {
		loaded, err := Load(c)
		if err != nil {
			return "", err
		}
		return loaded.Hash, nil
	}
	f, err := userfile.Open(c.Path)
	if err != nil {
		return "", fmt.Errorf("load corpus: %w", err)
	}
	defer f.Close()
	fields := c.fields()
	h := jsonlHash(fields[0], fields[1], fields[2])
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("load corpus: %s: %w", c.Path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// CachedIDs is LoadIDs kept in cacheDir (nothing kept when it
// is "") under a key of the corpus's content hash (Hash): once kept,
// the ids of a JSON-lines corpus cost a hash of its bytes instead of a
// scan of its lines. Only the ids of a corpus that loaded without error
// are kept; a folder is always loaded. A file that cannot be kept is no
// error.
func CachedIDs(c Config, cacheDir string) (*Corpus, error) {
	if cacheDir == "" || !c.jsonLines() {
		return LoadIDs(c)
	}
	hash, err := Hash(c)
	if err != nil {
		return nil, err
	}
	if b, err := os.ReadFile(idsPath(cacheDir, hash)); err == nil {
		var ids []string
		if json.Unmarshal(b, &ids) == nil && len(ids) > 0 {
			docs := make([]Document, len(ids))
			for i, id := range ids {
				docs[i].ID = id
			}
			return &Corpus{Docs: docs}, nil
		}
	}
	loaded, err := loadIDs(c, true)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(loaded.Docs))
	for i, d := range loaded.Docs {
		ids[i] = d.ID
	}
	if b, err := json.Marshal(ids); err == nil {
		// Under the hash of the corpus as read (it may have changed
		// since Hash read it).
		_ = writeFile(idsPath(cacheDir, loaded.Hash), b)
	}
	loaded.Hash = "" // as LoadIDs gives it
	return loaded, nil
}

// idsPath is where CachedIDs keeps the ids of the corpus
// whose content hash is hash.
func idsPath(cacheDir, hash string) string {
	return filepath.Join(cacheDir, "ids-"+CacheKey(hash, ChunkConfig{}, "corpus-ids", "v1"))
}

// fingerprintPattern is what a cached chunks fingerprint must look like.
var fingerprintPattern = regexp.MustCompile(`^[0-9a-f]{64}$`)

// CachedChunksFingerprint returns ChunksFingerprint of the corpus c
// describes under chunk, kept in cacheDir (nothing kept when it is "")
// under a key of the corpus's content hash (Hash) and the chunk
// settings: once kept, it costs a hash of the corpus's bytes instead of
// parsing and chunking it. load reads the corpus when it is not kept (nil:
// Load). A file that cannot be kept is no error: the fingerprint is
// computed again next time.
func CachedChunksFingerprint(c Config, chunk ChunkConfig, cacheDir string, load func() (*Corpus, error)) (string, error) {
	if load == nil {
		load = func() (*Corpus, error) { return Load(c) }
	}
	if cacheDir == "" {
		loaded, err := load()
		if err != nil {
			return "", err
		}
		return ChunksFingerprint(loaded.Docs, chunk)
	}
	hash, err := Hash(c)
	if err != nil {
		return "", err
	}
	if b, err := os.ReadFile(chunksFingerprintPath(cacheDir, hash, chunk)); err == nil && fingerprintPattern.Match(b) {
		return string(b), nil
	}
	loaded, err := load()
	if err != nil {
		return "", err
	}
	fp, err := ChunksFingerprint(loaded.Docs, chunk)
	if err != nil {
		return "", err
	}
	// Kept under the hash of the corpus as read (it may have changed since
	// Hash read it). A cache: a failed write only costs the next
	// sweep a parse.
	_ = writeFile(chunksFingerprintPath(cacheDir, loaded.Hash, chunk), []byte(fp))
	return fp, nil
}

// chunksFingerprintPath is where CachedChunksFingerprint keeps the
// fingerprint of the corpus whose content hash is hash cut under chunk.
func chunksFingerprintPath(cacheDir, hash string, chunk ChunkConfig) string {
	return filepath.Join(cacheDir, "chunks-"+CacheKey(hash, chunk, "chunks-fingerprint"))
}

// CacheKey hashes a corpus content hash (Corpus.Hash), chunk settings and
// parts into a short hex key for an entry of the engine's on-disk cache,
// where CachedIDs and CachedChunksFingerprint keep theirs too.
func CacheKey(corpusHash string, chunk ChunkConfig, parts ...string) string {
	h := sha256.New()
	fmt.Fprintf(h, "fusiontune-engine-cache-v1\x00%s\x00size=%d\x00overlap=%d\x00title+text", corpusHash, chunk.Size, chunk.Overlap)
	for _, p := range parts {
		fmt.Fprintf(h, "\x00%s", p)
	}
	return hex.EncodeToString(h.Sum(nil))[:20]
}

// writeFile writes data to path through a temporary file beside it
// (never in os.TempDir, which may be another filesystem), making its
// directory first.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Replace(path, data, 0o644)
}
