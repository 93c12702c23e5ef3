// Package architecture holds no code: its test checks the rules the
// project's packages follow (ARCHITECTURE.md draws them), from `go list`
// data and the packages' sources, so that a change breaking one fails CI:
//
//   - leaves (internal/...) import nothing of ours but other leaves;
//   - metrics imports nothing of ours but leaves;
//   - backend never imports the workflows above it (tuner, runs,
//     experiments), the scoring (metrics) nor the command;
//   - runs and experiments never import tuner or the command;
//   - no package below tuner imports tuner, and nothing imports cmd;
//   - only cmd reads the environment (os.Getenv, os.LookupEnv,
//     os.Environ, os.ExpandEnv), test-support packages aside;
//   - every package has a doc comment in its doc.go that ends with the
//     rooms it imports ("Imports of ours: …"), as it does;
//   - no package holds over 40 non-test files or 6,000 non-test lines,
//     and tuner exports at most 80 names.
//
// Imports of ours: none.
package architecture
