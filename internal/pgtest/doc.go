// Package pgtest starts a throwaway PostgreSQL server for tests: initdb into
// a fresh temporary directory, pg_ctl start on a free loopback port with the
// unix socket kept in that directory, and stop plus removal at cleanup.
//
// The server binaries are found through `pg_config --bindir` (Debian's
// postgresql-15 package), or the PGTEST_BINDIR environment variable. Tests
// skip with a clear message when they are absent. initdb refuses to run as
// root, so when the test process is root the server runs as the unprivileged
// user named by PGTEST_USER (default "postgres").
//
// Imports of ours: none.
package pgtest
