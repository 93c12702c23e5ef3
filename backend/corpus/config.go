package corpus

// Config says where the corpus is and how to read it (the corpus block
// of an engine config).
type Config struct {
	Path       string `yaml:"path" json:"path"`
	Format     string `yaml:"format,omitempty" json:"format"`           // beir, jsonl or dir; inferred from Path when empty
	IDField    string `yaml:"id_field,omitempty" json:"id_field"`       // jsonl: member holding the id (default "_id")
	TitleField string `yaml:"title_field,omitempty" json:"title_field"` // jsonl: member holding the title (default "title"; optional in each line)
	TextField  string `yaml:"text_field,omitempty" json:"text_field"`   // jsonl: member holding the text (default "text")
	// Fields names further members each document keeps in its Fields
	// (jsonl and beir; a member of a line's "metadata" object counts when
	// the line has none of that name): what judgments scoped to a book or
	// a chapter compare. Not part of an engine config.
	Fields []string `yaml:"-" json:"-"`
}

// jsonLines reports whether c's corpus is one file of JSON lines (beir,
// jsonl, or a format left to infer), not a folder.
func (c Config) jsonLines() bool {
	return c.Format == FormatBEIR || c.Format == FormatJSONL || c.Format == ""
}

func (c Config) fields() [3]string {
	if c.Format == FormatBEIR {
		return [3]string{"_id", "title", "text"}
	}
	f := [3]string{c.IDField, c.TitleField, c.TextField}
	def := [3]string{"_id", "title", "text"}
	for i := range f {
		if f[i] == "" {
			f[i] = def[i]
		}
	}
	return f
}

// ChunkConfig sets the token windows: Size tokens each, Overlap shared
// between neighbours; Size 0 indexes whole documents.
type ChunkConfig struct {
	Size    int `yaml:"size" json:"size"`
	Overlap int `yaml:"overlap" json:"overlap"`
}
