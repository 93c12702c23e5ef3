// Package sqldb opens the project's SQL stores (the shared study storage of
// tuner/studystore, the label store of tuner/judging/labels) with gorm: a
// SQLite file that several processes share safely, or a PostgreSQL (or
// MySQL) server; tables created once under a lock; transactions retried
// on the transient errors concurrent writers meet.
//
// Imports of ours: none.
package sqldb
