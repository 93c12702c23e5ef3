// Package corpus reads a document collection and cuts it into the chunks
// the retrievers index: BEIR corpus.jsonl, JSON lines with configurable
// fields or a folder of .md and .txt files (Load, LoadIDs, ReadJSONL);
// token windows (ChunkDocuments) and the text both retrievers see of each
// chunk (IndexTexts); the content hash that keys the on-disk caches (Hash,
// CacheKey) and the ids and chunk fingerprints kept there (CachedIDs,
// CachedChunksFingerprint).
//
// The embedded engine builds its indexes from it, and the adapters of
// other engines (postgres, weaviate) load the same units with it, so every
// engine searches the same chunks.
//
// Imports of ours: internal/atomicfile, internal/userfile.
package corpus
