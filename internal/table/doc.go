// Package table keeps a listing as data — columns, rows of cells, a
// title above and notes below — and writes it in the format a --format
// flag names: a terminal table (Text), Markdown, CSV or JSON.
//
// It also holds the one format switch of tune's renderers: a renderer
// parses --format with the Formats it offers (Formats.Parse, ParseFormat's
// spellings) and hands Output a writer per format, a Table's Render for a
// listing or the encoding of its own struct for JSON.
//
// A table stays data until it is rendered, so that what text and Markdown
// show can be shaped then (fit.go): the first Top rows, columns without
// a value hidden (HideEmpty), and a text table made to fit MaxWidth
// characters by leaving out columns and cutting long cells, with a note
// saying what was left out. CSV and JSON always carry everything. The
// package imports nothing of tune's.
//
// Imports of ours: none.
package table
