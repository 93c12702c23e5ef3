package sweeptest_test

import (
	"testing"

	"github.com/fusiontune/fusiontune/backend/engine/enginetest"
)

// TestMain lets the in-process sweeps of this package's tests start the
// embedded engine (enginetest.Main).
func TestMain(m *testing.M) { enginetest.Main(m) }
