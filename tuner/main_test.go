package tuner_test

import (
	"testing"

	"github.com/fusiontune/fusiontune/internal/sweeptest"
)

// TestMain lets the in-process sweeps of this package's tests start the
// embedded engine (sweeptest.Main).
func TestMain(m *testing.M) { sweeptest.Main(m) }
