package experiments

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/fusion"
)

// fusionSetting returns the fusion setting a parameter sets
// (fusion.Method.Reads's names: "k", "weights", "normalization"), or "".
func fusionSetting(param string) string {
	switch {
	case param == backend.ParamFusionK:
		return fusion.SettingK
	case param == backend.ParamFusionNormalization:
		return fusion.SettingNormalization
	case strings.HasPrefix(param, WeightPrefix):
		return fusion.SettingWeights
	}
	return ""
}

// ignoredParams warns about parameters the trials' fusion method ignores
// (fusion.Method.Reads, the fusion package's table): fusion.normalization
// under rrf, fusion.k under linear, combsum or combmnz, weights under
// combsum or combmnz (where only a weight of 0 counts: it switches a
// retriever off). Only trials that set fusion.method are judged (the
// backend's own default method is not known here). A search space
// sampling such a parameter while fusion.method is fixed by the baseline
// is warned about too. One warning per parameter and method.
func ignoredParams(path string, trials []TrialSpec, baseline Params, space []SpaceParam) []string {
	type key struct{ param, method string }
	count := map[key]int{}
	first := map[key]string{}
	for _, t := range trials {
		m, ok := t.Params[backend.ParamFusionMethod].(string)
		if !ok {
			continue
		}
		for name, v := range t.Params {
			s := fusionSetting(name)
			if s == "" || fusion.Method(m).Reads(s) || !known(m) {
				continue
			}
			if w, ok := v.(float64); ok && s == fusion.SettingWeights && w == 0 {
				continue // switches the retriever off under every method
			}
			k := key{name, m}
			if count[k] == 0 {
				first[k] = t.Name
			}
			count[k]++
		}
	}
	keys := make([]key, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].param != keys[j].param {
			return keys[i].param < keys[j].param
		}
		return keys[i].method < keys[j].method
	})
	var out []string
	for _, k := range keys {
		out = append(out, fmt.Sprintf("%s: %s is ignored by fusion.method %s (%d trials set it, first %q): they rank as if it were unset",
			path, k.param, k.method, count[k], first[k]))
	}
	m, fixed := baseline[backend.ParamFusionMethod].(string)
	for _, sp := range space {
		if sp.Param == backend.ParamFusionMethod {
			fixed = false
		}
	}
	if !fixed || !known(m) {
		return out
	}
	for _, sp := range space {
		if s := fusionSetting(sp.Param); s != "" && !fusion.Method(m).Reads(s) {
			out = append(out, fmt.Sprintf("%s: space samples %s, which the baseline's fusion.method %s ignores: its trials differ only by chance", path, sp.Param, m))
		}
	}
	return out
}

// known reports whether m is a fusion method (experiment files check it).
func known(m string) bool {
	for _, s := range []string{fusion.SettingK, fusion.SettingWeights, fusion.SettingNormalization} {
		if fusion.Method(m).Reads(s) {
			return true
		}
	}
	return false
}
