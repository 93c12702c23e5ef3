package corpus

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// Chunk is a window of a document's text: the unit the retrievers index and
// rank. Start and End are byte offsets into the document's Text, [Start, End),
// so a passage judgment given as a verbatim substring (located with
// strings.Index) can be matched against chunks by offset overlap.
type Chunk struct {
	ID    string `json:"id"`     // DocID for whole documents, else DocID + "#" + Seq
	DocID string `json:"doc_id"` // the document the chunk belongs to
	Seq   int    `json:"seq"`    // 0-based position of the chunk in its document
	Start int    `json:"start"`  // byte offset of the first byte in Document.Text
	End   int    `json:"end"`    // byte offset just past the last byte
	Text  string `json:"text"`   // Document.Text[Start:End]
}

// ChunkSeparator joins a document id and a chunk position in chunk ids:
// "doc-7#2" is the third chunk of "doc-7".
const ChunkSeparator = "#"

// ChunkDocuments cuts every document into windows of size whitespace-separated
// tokens, consecutive windows sharing overlap tokens. size 0 keeps whole
// documents: one chunk per document whose id equals the document id. A
// document with fewer tokens than size (or none) gives one chunk. The last
// window of a document ends at its last token; no window is empty of new
// tokens.
func ChunkDocuments(docs []Document, size, overlap int) ([]Chunk, error) {
	if size < 0 || overlap < 0 || (size > 0 && overlap >= size) {
		return nil, fmt.Errorf("chunk: need size >= 0 and 0 <= overlap < size (got size %d, overlap %d)", size, overlap)
	}
	chunks := make([]Chunk, 0, len(docs))
	var spans [][2]int
	for _, d := range docs {
		if size == 0 {
			chunks = append(chunks, Chunk{ID: d.ID, DocID: d.ID, Start: 0, End: len(d.Text), Text: d.Text})
			continue
		}
		spans = tokenSpans(d.Text, spans[:0])
		if len(spans) <= size {
			start, end := 0, 0
			if len(spans) > 0 {
				start, end = spans[0][0], spans[len(spans)-1][1]
			}
			chunks = append(chunks, chunkOf(d, 0, start, end))
			continue
		}
		stride := size - overlap
		for seq, first := 0, 0; ; seq, first = seq+1, first+stride {
			last := min(first+size, len(spans)) - 1
			chunks = append(chunks, chunkOf(d, seq, spans[first][0], spans[last][1]))
			if last == len(spans)-1 {
				break
			}
		}
	}
	return chunks, nil
}

func chunkOf(d Document, seq, start, end int) Chunk {
	return Chunk{
		ID:    d.ID + ChunkSeparator + strconv.Itoa(seq),
		DocID: d.ID,
		Seq:   seq,
		Start: start,
		End:   end,
		Text:  d.Text[start:end],
	}
}

// tokenSpans appends the [start, end) byte spans of the maximal runs of
// non-space runes of s to dst.
func tokenSpans(s string, dst [][2]int) [][2]int {
	start := -1
	for i := 0; i < len(s); {
		r, w := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRuneInString(s[i:])
		}
		if unicode.IsSpace(r) {
			if start >= 0 {
				dst = append(dst, [2]int{start, i})
				start = -1
			}
		} else if start < 0 {
			start = i
		}
		i += w
	}
	if start >= 0 {
		dst = append(dst, [2]int{start, len(s)})
	}
	return dst
}

// ChunkFingerprint hashes what the retrievers index of chunks: each
// chunk's id, document, title (titles[i], the title of chunk i's
// document) and text, in order. Two chunkings with equal fingerprints
// build the same indexes and rank alike (see engine.Config.IndexFingerprint).
func ChunkFingerprint(chunks []Chunk, titles []string) string {
	h := sha256.New()
	io.WriteString(h, "fusiontune-chunks-v1")
	for i, c := range chunks {
		fmt.Fprintf(h, "\x00%d:%s\x00%d:%s\x00%d:%s\x00%d:%s", len(c.ID), c.ID, len(c.DocID), c.DocID,
			len(titles[i]), titles[i], len(c.Text), c.Text)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// chunkTitles returns the title of each chunk's document (chunks in
// corpus order, as ChunkDocuments returns them).
func chunkTitles(docs []Document, chunks []Chunk) []string {
	titles := make([]string, len(chunks))
	di := 0
	for i, c := range chunks {
		for docs[di].ID != c.DocID {
			di++
		}
		titles[i] = docs[di].Title
	}
	return titles
}

// ChunksFingerprint chunks docs under c as the engine's Build does and returns the
// ChunkFingerprint of the chunks: equal for two chunk settings that cut
// the corpus alike (a chunk size above every document's length, say).
func ChunksFingerprint(docs []Document, c ChunkConfig) (string, error) {
	chunks, err := ChunkDocuments(docs, c.Size, c.Overlap)
	if err != nil {
		return "", err
	}
	return ChunkFingerprint(chunks, chunkTitles(docs, chunks)), nil
}
