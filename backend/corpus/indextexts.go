package corpus

// IndexTexts returns what the engine indexes of a corpus under a chunk
// setting, in index order: each chunk, its id and the text both retrievers
// see (IndexText). An external engine loaded with these texts and their
// embeddings (embed.ForQueries fitted on texts) searches the same units as
// the embedded corpus.
func IndexTexts(docs []Document, c ChunkConfig) (chunks []Chunk, texts []string, err error) {
	chunks, err = ChunkDocuments(docs, c.Size, c.Overlap)
	if err != nil {
		return nil, nil, err
	}
	return chunks, Texts(chunks, chunkTitles(docs, chunks)), nil
}

// Texts returns what both retrievers index of each chunk: IndexText of
// titles[i], the title of chunk i's document, and its text.
func Texts(chunks []Chunk, titles []string) []string {
	texts := make([]string, len(chunks))
	for i, c := range chunks {
		texts[i] = IndexText(titles[i], c.Text)
	}
	return texts
}

// IndexText is a chunk's indexed text: its document's title, a blank line
// and its text; the text alone without a title.
func IndexText(title, text string) string {
	if title == "" {
		return text
	}
	return title + "\n\n" + text
}
