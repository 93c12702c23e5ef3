// Package userfile opens and reads the files users hand tune (golden sets,
// judgments, experiment files, settings, engine configs, pools, label
// imports, query logs, corpora) safely: only regular files (a device, pipe
// or socket such as /dev/zero would be read forever), and, where a limit
// applies, no more bytes than it allows, refused from the file's size
// before a byte is read, naming the limit and the setting that changes it.
//
// Imports of ours: none.
package userfile
