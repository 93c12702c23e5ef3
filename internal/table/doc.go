// Package table keeps a listing as data — columns, rows of cells, a
// title above and notes below — and writes it in the format a --format
// flag names: a terminal table (Text), Markdown, CSV or JSON.
//
// It also holds the one format switch of tune's renderers: a renderer
// parses --format with the Formats it offers (Formats.Parse, ParseFormat's
// spellings) and hands Output a writer per format, a Table's Render for a
// listing or the encoding of its own struct for JSON.
//
// A table stays data until it is rendered, so that a renderer (or a later
// option) can cut rows or hide columns before drawing it. The package
// imports nothing of tune's.
//
// Imports of ours: none.
package table
