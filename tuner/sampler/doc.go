// Package sampler is the tuner's sampler study: a search space over the
// experiment file's parameters, seeded samplers (random, TPE, CMA-ES, on
// goptuna), successive-halving pruning on query subsets, and a Study that
// proposes trials (Ask), takes partial scores (Report) and outcomes (Tell),
// with pluggable storage so that workers can share one study.
//
// Imports of ours: experiments, runs.
package sampler
