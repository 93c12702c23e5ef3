package backendtest

import (
	"reflect"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
)

// Effective is one check of backend.EffectiveParam: under Params,
// parameter Name takes Want (OK false: no value known).
type Effective struct {
	Params map[string]any
	Name   string
	Want   any
	OK     bool
}

// CheckEffective runs each check against f.
func CheckEffective(t *testing.T, f backend.Factory, checks []Effective) {
	t.Helper()
	for _, c := range checks {
		got, ok := backend.EffectiveParam(f, c.Params, c.Name)
		if ok != c.OK || !reflect.DeepEqual(got, c.Want) {
			t.Errorf("%v: %s = %#v, %v, want %#v, %v", c.Params, c.Name, got, ok, c.Want, c.OK)
		}
	}
}
