package engine

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
)

// CorpusHash returns the Hash LoadCorpus gives the corpus c describes. A
// JSON-lines corpus is hashed from its bytes without being parsed (it is
// not checked either); a folder is loaded.
func CorpusHash(c CorpusConfig) (string, error) {
	if !c.jsonLines() {
		corpus, err := LoadCorpus(c)
		if err != nil {
			return "", err
		}
		return corpus.Hash, nil
	}
	f, err := os.Open(c.Path)
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

// CachedCorpusIDs is LoadCorpusIDs kept in cacheDir (nothing kept when it
// is "") under a key of the corpus's content hash (CorpusHash): once kept,
// the ids of a JSON-lines corpus cost a hash of its bytes instead of a
// scan of its lines. Only the ids of a corpus that loaded without error
// are kept; a folder is always loaded. A file that cannot be kept is no
// error.
func CachedCorpusIDs(c CorpusConfig, cacheDir string) (*Corpus, error) {
	if cacheDir == "" || !c.jsonLines() {
		return LoadCorpusIDs(c)
	}
	hash, err := CorpusHash(c)
	if err != nil {
		return nil, err
	}
	if b, err := os.ReadFile(corpusIDsPath(cacheDir, hash)); err == nil {
		var ids []string
		if json.Unmarshal(b, &ids) == nil && len(ids) > 0 {
			docs := make([]Document, len(ids))
			for i, id := range ids {
				docs[i].ID = id
			}
			return &Corpus{Docs: docs}, nil
		}
	}
	corpus, err := loadCorpusIDs(c, true)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(corpus.Docs))
	for i, d := range corpus.Docs {
		ids[i] = d.ID
	}
	if b, err := json.Marshal(ids); err == nil {
		// Under the hash of the corpus as read (it may have changed
		// since CorpusHash read it).
		_ = writeFileAtomic(corpusIDsPath(cacheDir, corpus.Hash), b)
	}
	corpus.Hash = "" // as LoadCorpusIDs gives it
	return corpus, nil
}

// corpusIDsPath is where CachedCorpusIDs keeps the ids of the corpus
// whose content hash is hash.
func corpusIDsPath(cacheDir, hash string) string {
	return filepath.Join(cacheDir, "ids-"+cacheKey(hash, ChunkConfig{}, "corpus-ids", "v1"))
}

// fingerprintPattern is what a cached chunks fingerprint must look like.
var fingerprintPattern = regexp.MustCompile(`^[0-9a-f]{64}$`)

// CachedChunksFingerprint returns ChunksFingerprint of the corpus c
// describes under chunk, kept in cacheDir (nothing kept when it is "")
// under a key of the corpus's content hash (CorpusHash) and the chunk
// settings: once kept, it costs a hash of the corpus's bytes instead of
// parsing and chunking it. load reads the corpus when it is not kept (nil:
// LoadCorpus). A file that cannot be kept is no error: the fingerprint is
// computed again next time.
func CachedChunksFingerprint(c CorpusConfig, chunk ChunkConfig, cacheDir string, load func() (*Corpus, error)) (string, error) {
	if load == nil {
		load = func() (*Corpus, error) { return LoadCorpus(c) }
	}
	if cacheDir == "" {
		corpus, err := load()
		if err != nil {
			return "", err
		}
		return ChunksFingerprint(corpus.Docs, chunk)
	}
	hash, err := CorpusHash(c)
	if err != nil {
		return "", err
	}
	if b, err := os.ReadFile(chunksFingerprintPath(cacheDir, hash, chunk)); err == nil && fingerprintPattern.Match(b) {
		return string(b), nil
	}
	corpus, err := load()
	if err != nil {
		return "", err
	}
	fp, err := ChunksFingerprint(corpus.Docs, chunk)
	if err != nil {
		return "", err
	}
	// Kept under the hash of the corpus as read (it may have changed since
	// CorpusHash read it). A cache: a failed write only costs the next
	// sweep a parse.
	_ = writeFileAtomic(chunksFingerprintPath(cacheDir, corpus.Hash, chunk), []byte(fp))
	return fp, nil
}

// chunksFingerprintPath is where CachedChunksFingerprint keeps the
// fingerprint of the corpus whose content hash is hash cut under chunk.
func chunksFingerprintPath(cacheDir, hash string, chunk ChunkConfig) string {
	return filepath.Join(cacheDir, "chunks-"+cacheKey(hash, chunk, "chunks-fingerprint"))
}
