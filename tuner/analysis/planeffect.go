package analysis

import (
	"fmt"
	"strconv"

	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/internal/plainnum"
)

// DefaultPlanEffect is the mean gain `tune plan` budgets for unless told
// (--effect).
const DefaultPlanEffect = 0.02

// DefaultPlanEffectText is DefaultPlanEffect as --effect's default value.
var DefaultPlanEffectText = strconv.FormatFloat(DefaultPlanEffect, 'g', -1, 64)

// ParseEffect reads an effect to budget for (tune plan --effect): a plain
// number in (0, 1]; anything else is an inputerr.Error.
func ParseEffect(s string) (float64, error) {
	e, ok := plainnum.Float(s)
	if !ok || !(e > 0 && e <= 1) {
		return 0, inputerr.Wrap(fmt.Errorf("--effect: must be a number in (0, 1] (got %q)", s))
	}
	return e, nil
}
