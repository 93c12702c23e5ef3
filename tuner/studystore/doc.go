// Package studystore keeps goptuna studies in a relational database shared
// by several tuning workers: it opens goptuna's RDB storage (rdb.v2, gorm v2)
// from a URL, creates its tables idempotently, and claims trials through the
// database so that no trial runs twice, with a heartbeat rule that fails (and
// re-queues) the running trial of a worker that died.
//
// URLs follow goptuna's (SQLAlchemy's) form, so `goptuna dashboard
// --storage URL` reads the same study:
//
//	sqlite:///relative/path.db   sqlite:////absolute/path.db
//	postgres://user:pass@host:5432/db?sslmode=disable  (or postgresql://)
//	mysql://user:pass@host:3306/db
//
// Imports of ours: internal/sqldb.
package studystore
