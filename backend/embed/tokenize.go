package embed

import (
	"strings"
	"unicode"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
)

// words splits text into lowercased runs of letters and digits, calling
// yield for each.
func words(text string, yield func(string)) {
	start := -1
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			yield(strings.ToLower(text[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		yield(strings.ToLower(text[start:]))
	}
}

func stem(w string) string {
	env := snowballstem.NewEnv(w)
	english.Stem(env)
	return env.Current()
}

// stopWords is a common English stop list (function words only).
var stopWords = func() map[string]bool {
	list := `a about above after again against all also am an and any are as at be
because been before being below between both but by can could did do does doing
down during each either else etc ever every few for from further had has have
having he her here hers herself him himself his how however i if in into is it
its itself just may me might more most much must my myself neither no nor not
now of off on once only or other otherwise our ours ourselves out over own per
rather same shall she should since so some such than that the their theirs them
themselves then there these they this those though through thus to too under
until up upon us very via was we were what when where whether which while who
whom whose why will with within without would yet you your yours yourself
yourselves`
	m := make(map[string]bool)
	for _, w := range strings.Fields(list) {
		m[w] = true
	}
	return m
}()
