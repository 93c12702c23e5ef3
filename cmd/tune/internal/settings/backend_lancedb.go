package settings

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/lancedb"
)

// KindLanceDB is backend.kind for LanceDB.
const KindLanceDB = lancedb.Kind

// LanceDB (backend.lancedb) configures the lancedb kind.
type LanceDB struct {
	// Node is the node executable (default node).
	Node string `mapstructure:"node"`
	// Sidecar is the kind's sidecar directory (backend/lancedb/sidecar,
	// after npm ci).
	Sidecar string `mapstructure:"sidecar"`
	// URI and Table attach to the user's table (never changed); unset,
	// the kind builds a sandbox table of the corpus in the run.
	URI   string `mapstructure:"uri"`
	Table string `mapstructure:"table"`
	// The attached table's columns (defaults id, text, vector).
	IDColumn     string `mapstructure:"id_column"`
	TextColumn   string `mapstructure:"text_column"`
	VectorColumn string `mapstructure:"vector_column"`
	// Distance is the vector leg's distance type: l2, cosine or dot.
	Distance string `mapstructure:"distance"`
	// Model embeds queries (and a sandbox's documents).
	Model string `mapstructure:"model"`
	// Corpus is a sandbox's corpus (default: the dataset's corpus).
	Corpus string `mapstructure:"corpus"`
	// BaseURL and APIKeyEnv serve openai:<model>.
	BaseURL   string `mapstructure:"base_url"`
	APIKeyEnv string `mapstructure:"api_key_env"`
}

// lancedbProblems lists what is wrong with a lancedb backend block.
func (b Backend) lancedbProblems(add func(field, format string, args ...any)) {
	b.refuseServiceKeys(add, "not for backend.kind lancedb (it queries LanceDB through its sidecar)")
	l := b.LanceDB
	if l.Sidecar == "" {
		add("lancedb.sidecar", "required: the kind's sidecar directory (backend/lancedb/sidecar, after npm ci)")
	}
	if l.Model == "" {
		add("lancedb.model", "required: the embedder of the queries, e.g. lsa-256")
	}
	if (l.URI == "") != (l.Table == "") {
		add("lancedb", "give uri and table together (attach to your table) or neither (a sandbox in the run)")
	}
	if l.Table == "" && (l.IDColumn != "" || l.TextColumn != "" || l.VectorColumn != "") {
		add("lancedb", "id_column, text_column and vector_column name an attached table's columns: only with table")
	}
	if l.Distance != "" && !contains(lancedb.Distances, l.Distance) {
		add("lancedb.distance", "want %s (got %q)", strings.Join(lancedb.Distances, ", "), l.Distance)
	}
}

// lancedbOptions builds the lancedb kind's options; corpusPath is the
// dataset's corpus, a sandbox's unless backend.lancedb.corpus is set (""
// for promote and rollback, which read it from the production config).
func (b Backend) lancedbOptions(corpusPath string, secret func(...string)) (lancedb.Options, error) {
	l := b.LanceDB
	o := lancedb.Options{
		Node: l.Node, Sidecar: l.Sidecar, URI: l.URI, Table: l.Table, IDColumn: l.IDColumn, TextColumn: l.TextColumn,
		VectorColumn: l.VectorColumn, Distance: l.Distance, Model: l.Model,
		Embed: embedOptions(l.Model, l.BaseURL, l.APIKeyEnv, secret), StartTimeout: b.StartTimeout,
	}
	if l.Table != "" {
		return o, nil
	}
	if l.Corpus != "" {
		corpusPath = l.Corpus
	}
	o.Corpus.Path = "-" // promote and rollback read the corpus from the production config
	if corpusPath != "" {
		abs, err := filepath.Abs(corpusPath)
		if err != nil {
			return lancedb.Options{}, fmt.Errorf("backend.lancedb.corpus: %w", err)
		}
		o.Corpus = corpus.Config{Path: abs}
	}
	return o, nil
}
