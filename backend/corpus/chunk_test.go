package corpus_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/corpus"
)

func TestChunkDocuments(t *testing.T) {
	doc := corpus.Document{ID: "d", Text: "  one two\tthree\nfour five six seven "}
	tests := []struct {
		name          string
		size, overlap int
		want          []string // "id[start:end]=text"
	}{
		{"whole", 0, 0, []string{"d[0:36]=" + doc.Text}},
		{"size 3", 3, 0, []string{"d#0[2:15]=one two\tthree", "d#1[16:29]=four five six", "d#2[30:35]=seven"}},
		{"overlap 1", 3, 1, []string{"d#0[2:15]=one two\tthree", "d#1[10:25]=three\nfour five", "d#2[21:35]=five six seven"}},
		{"overlap 2", 3, 2, []string{"d#0[2:15]=one two\tthree", "d#1[6:20]=two\tthree\nfour", "d#2[10:25]=three\nfour five", "d#3[16:29]=four five six", "d#4[21:35]=five six seven"}},
		{"larger than doc", 50, 10, []string{"d#0[2:35]=one two\tthree\nfour five six seven"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunks, err := corpus.ChunkDocuments([]corpus.Document{doc}, tt.size, tt.overlap)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for i, c := range chunks {
				if c.DocID != "d" || c.Seq != i && tt.size > 0 || doc.Text[c.Start:c.End] != c.Text {
					t.Errorf("chunk %d inconsistent: %+v", i, c)
				}
				got = append(got, fmt.Sprintf("%s[%d:%d]=%s", c.ID, c.Start, c.End, c.Text))
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestChunkDocumentsEmptyAndUnicode(t *testing.T) {
	chunks, err := corpus.ChunkDocuments([]corpus.Document{{ID: "e", Text: ""}, {ID: "u", Text: "é\u00a0ü ß"}}, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != 3 || chunks[0].ID != "e#0" || chunks[0].Text != "" {
		t.Fatalf("got %+v", chunks)
	}
	if chunks[1].Text != "é\u00a0ü" || chunks[2].Text != "ß" {
		t.Errorf("unicode spaces: got %q %q", chunks[1].Text, chunks[2].Text)
	}
}

func TestChunkDocumentsBadParams(t *testing.T) {
	for _, p := range [][2]int{{-1, 0}, {3, 3}, {3, -1}} {
		if _, err := corpus.ChunkDocuments(nil, p[0], p[1]); err == nil {
			t.Errorf("size %d overlap %d: want an error", p[0], p[1])
		}
	}
}

func BenchmarkChunkDocuments(b *testing.B) {
	text := strings.Repeat("lorem ipsum dolor sit amet ", 400)
	docs := make([]corpus.Document, 100)
	for i := range docs {
		docs[i] = corpus.Document{ID: fmt.Sprint(i), Text: text}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := corpus.ChunkDocuments(docs, 200, 50); err != nil {
			b.Fatal(err)
		}
	}
}
