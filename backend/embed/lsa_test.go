package embed_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"github.com/fusiontune/fusiontune/backend/embed"
)

func fitLSA(t testing.TB, dim int, texts []string) *embed.LSA {
	t.Helper()
	e := embed.NewLSA(dim, embed.DefaultSeed)
	if err := e.Fit(context.Background(), embed.Strings(texts)); err != nil {
		t.Fatal(err)
	}
	return e
}

func embedAll(t testing.TB, e embed.Embedder, texts []string) [][]float32 {
	t.Helper()
	vecs, err := e.EmbedDocuments(context.Background(), make([]string, len(texts)), texts)
	if err != nil {
		t.Fatal(err)
	}
	return vecs
}

func query(t testing.TB, e embed.Embedder, text string) []float32 {
	t.Helper()
	v, err := e.EmbedQuery(context.Background(), text)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// meanCosine averages the cosine over pairs (a[i], b[j]), skipping i == j
// when a and b are the same set.
func meanCosine(a, b [][]float32, same bool) float64 {
	var sum float64
	var n int
	for i := range a {
		for j := range b {
			if same && i == j {
				continue
			}
			sum += embed.Cosine(a[i], b[j])
			n++
		}
	}
	return sum / float64(n)
}

func TestLSATopics(t *testing.T) {
	astro, baking := plantedCorpus(40, 8)
	e := fitLSA(t, 8, append(slices.Clone(astro), baking...))
	va, vb := embedAll(t, e, astro), embedAll(t, e, baking)
	sameA, sameB, cross := meanCosine(va, va, true), meanCosine(vb, vb, true), meanCosine(va, vb, false)
	t.Logf("mean cosine: astronomy %.3f, baking %.3f, across %.3f", sameA, sameB, cross)
	if sameA < cross+0.5 || sameB < cross+0.5 {
		t.Errorf("same-topic cosines %.3f and %.3f are not well above the cross-topic %.3f", sameA, sameB, cross)
	}
}

// TestLSASynonyms: "cosmos" and "universe" never share a document but
// share their context, so LSA with one dimension per topic must put them
// together, away from baking. (With more dimensions LSA may spend one on
// the cosmos/universe contrast, as it would on any frequent pair.)
func TestLSASynonyms(t *testing.T) {
	astro, baking := plantedCorpus(40, 8)
	e := fitLSA(t, 2, append(slices.Clone(astro), baking...))
	cosmos, universe, flour := query(t, e, "cosmos"), query(t, e, "universe"), query(t, e, "flour")
	syn, unrelated := embed.Cosine(cosmos, universe), embed.Cosine(cosmos, flour)
	t.Logf("cos(cosmos, universe) = %.3f, cos(cosmos, flour) = %.3f", syn, unrelated)
	if syn < 0.8 || unrelated > 0.3 {
		t.Errorf("cos(cosmos, universe) = %.3f (want >= 0.8), cos(cosmos, flour) = %.3f (want <= 0.3)", syn, unrelated)
	}
}

func TestLSAShapeAndNorm(t *testing.T) {
	astro, baking := plantedCorpus(5, 6)
	texts := append(astro, baking...)
	tests := []struct {
		name string
		dim  int
	}{
		{"dim below rank", 3},
		{"dim above rank (zero padded)", 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := fitLSA(t, tt.dim, texts)
			if e.Dim() != tt.dim || e.Name() != "lsa-"+strconv.Itoa(tt.dim) {
				t.Errorf("Dim %d, Name %q", e.Dim(), e.Name())
			}
			for i, v := range append(embedAll(t, e, texts), query(t, e, "comet gravity")) {
				if len(v) != tt.dim {
					t.Fatalf("vector %d has %d dimensions, want %d", i, len(v), tt.dim)
				}
				if n := embed.Cosine(v, v); n < 0.9999 || n > 1.0001 {
					t.Fatalf("vector %d: squared norm %v, want 1", i, n)
				}
			}
			if v := query(t, e, "zzz unknownword"); slices.ContainsFunc(v, func(x float32) bool { return x != 0 }) {
				t.Errorf("a query without known terms gives %v, want the zero vector", v)
			}
		})
	}
}

func TestLSADeterministicAndPersistent(t *testing.T) {
	texts := zipfCorpus(600, 40, 800) // enough entries for parallel products
	a := fitLSA(t, 16, texts)
	prev := runtime.GOMAXPROCS(1) // the result must not depend on the cores
	b := fitLSA(t, 16, texts)
	runtime.GOMAXPROCS(prev)
	va, vb := embedAll(t, a, texts), embedAll(t, b, texts)
	if !slices.EqualFunc(va, vb, slices.Equal) {
		t.Fatal("two fits of the same corpus (GOMAXPROCS 1 and default) embed differently")
	}
	data, err := a.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	again, _ := b.MarshalBinary()
	if !bytes.Equal(data, again) {
		t.Error("two fits marshal to different bytes")
	}
	var c embed.LSA
	if err := c.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	if c.Name() != "lsa-16" || c.Dim() != 16 || c.Vocabulary() != a.Vocabulary() {
		t.Errorf("restored %s dim %d vocabulary %d, want lsa-16, 16, %d", c.Name(), c.Dim(), c.Vocabulary(), a.Vocabulary())
	}
	if vc := embedAll(t, &c, texts); !slices.EqualFunc(va, vc, slices.Equal) {
		t.Error("the restored model embeds differently")
	}
	if q1, q2 := query(t, a, "wb wc wd"), query(t, &c, "wb wc wd"); !slices.Equal(q1, q2) {
		t.Error("the restored model embeds queries differently")
	}
}

func TestLSAUnmarshalRejects(t *testing.T) {
	e := fitLSA(t, 4, zipfCorpus(50, 20, 100))
	good, err := e.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	flipped := slices.Clone(good)
	flipped[len(flipped)/2] ^= 0x40
	version := slices.Clone(good)
	version[5] = 9
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"wrong magic", append([]byte("NOTLSA"), good[6:]...)},
		{"other version", version},
		{"truncated", good[:len(good)-10]},
		{"flipped bit", flipped},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m embed.LSA
			if err := m.UnmarshalBinary(tt.data); !errors.Is(err, embed.ErrBadModel) {
				t.Errorf("got %v, want ErrBadModel", err)
			}
		})
	}
}

func TestLSANotFitted(t *testing.T) {
	e := embed.NewLSA(8, 1)
	if _, err := e.EmbedQuery(context.Background(), "x"); !errors.Is(err, embed.ErrNotFitted) {
		t.Errorf("EmbedQuery: got %v, want ErrNotFitted", err)
	}
	if _, err := e.EmbedDocuments(context.Background(), nil, []string{"x"}); !errors.Is(err, embed.ErrNotFitted) {
		t.Errorf("EmbedDocuments: got %v, want ErrNotFitted", err)
	}
	if _, err := e.MarshalBinary(); !errors.Is(err, embed.ErrNotFitted) {
		t.Errorf("MarshalBinary: got %v, want ErrNotFitted", err)
	}
	if err := e.Fit(context.Background(), embed.Strings([]string{"a the of", "x"})); err == nil {
		t.Error("Fit without a usable term succeeded")
	}
}

func TestLSAFitCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := embed.NewLSA(8, 1).Fit(ctx, embed.Strings(zipfCorpus(50, 20, 100))); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

func FuzzLSAUnmarshal(f *testing.F) {
	e := embed.NewLSA(2, 1)
	if err := e.Fit(context.Background(), embed.Strings(zipfCorpus(20, 10, 30))); err != nil {
		f.Fatal(err)
	}
	good, _ := e.MarshalBinary()
	f.Add(good)
	f.Add([]byte("FTLSA\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var m embed.LSA
		if err := m.UnmarshalBinary(data); err != nil {
			return
		}
		v, err := m.EmbedQuery(context.Background(), "wa wb")
		if err != nil || len(v) != m.Dim() {
			t.Fatalf("accepted model fails: %v, %d dims", err, len(v))
		}
	})
}

// BenchmarkLSAFit fits lsa-128 on 2,000 synthetic documents of 80 words.
func BenchmarkLSAFit(b *testing.B) {
	texts := zipfCorpus(2000, 80, 5000)
	for b.Loop() {
		if err := embed.NewLSA(128, 1).Fit(context.Background(), embed.Strings(texts)); err != nil {
			b.Fatal(err)
		}
	}
}

// scaleTexts is zipfCorpus(600, 40, 800) plus texts with upper case,
// stop words, Unicode and invalid UTF-8.
func scaleTexts() []string {
	return append(zipfCorpus(600, 40, 800),
		"The Running RUNNERS ran WA WB wc", "Ünïcode ÉCOLE école wa wb", "İstanbul ΣΊΣΥΦΟΣ σίσυφος wd",
		"bad \xff bytes wa", "ﬁnance Ⅻ ٣٤ wb wc")
}

// TestLSAModelUnchanged pins the model fitted on scaleTexts (the SHA-256 of
// its MarshalBinary bytes, recorded before the fit tokenized into term
// tables instead of per-text maps): a change to the tokenizer, the weights
// or the SVD shows here.
func TestLSAModelUnchanged(t *testing.T) {
	data, err := fitLSA(t, 16, scaleTexts()).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	const want = "9c0f668c7af4cf30ad8b321a1eb81059674918b6c03e0ffb2b8a888501965440"
	if got := fmt.Sprintf("%x", sha256.Sum256(data)); got != want {
		t.Errorf("model sha256 %s, want %s", got, want)
	}
}

// TestLSAFitEmbed: FitEmbed fits the model Fit fits and returns, bit for
// bit, what EmbedDocuments returns for the fitted texts.
func TestLSAFitEmbed(t *testing.T) {
	texts := scaleTexts()
	a := fitLSA(t, 16, texts)
	b := embed.NewLSA(16, embed.DefaultSeed)
	got, err := b.FitEmbed(context.Background(), embed.Strings(texts))
	if err != nil {
		t.Fatal(err)
	}
	if want := embedAll(t, a, texts); !slices.EqualFunc(got, want, slices.Equal) {
		t.Error("FitEmbed's vectors differ from Fit + EmbedDocuments")
	}
	ma, _ := a.MarshalBinary()
	mb, _ := b.MarshalBinary()
	if !bytes.Equal(ma, mb) {
		t.Error("FitEmbed fitted another model than Fit")
	}
}

// TestLSAFitEmbedSameOnAnyCores: the fitted model and the vectors FitEmbed
// returns are bit for bit the same on one core and several, for a corpus
// large enough that every product, the QR and the projection split.
func TestLSAFitEmbedSameOnAnyCores(t *testing.T) {
	texts := zipfCorpus(3000, 60, 4000)
	fit := func(procs, dim int) ([]byte, [][]float32) {
		prev := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(prev)
		e := embed.NewLSA(dim, embed.DefaultSeed)
		vecs, err := e.FitEmbed(context.Background(), embed.Strings(texts))
		if err != nil {
			t.Fatal(err)
		}
		model, err := e.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		return model, vecs
	}
	for _, tt := range []struct {
		name  string
		dim   int
		procs int
	}{
		{"lsa-32, 2 cores", 32, 2},
		{"lsa-128, 2 cores", 128, 2},
		{"lsa-128, 3 cores", 128, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			model1, vecs1 := fit(1, tt.dim)
			modelN, vecsN := fit(tt.procs, tt.dim)
			if !bytes.Equal(model1, modelN) {
				t.Errorf("the model fitted on %d cores differs from the one fitted on 1", tt.procs)
			}
			if !slices.EqualFunc(vecs1, vecsN, slices.Equal) {
				t.Errorf("the vectors embedded on %d cores differ from those on 1", tt.procs)
			}
		})
	}
}
