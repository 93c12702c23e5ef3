package report

import (
	_ "embed"
	"html/template"
)

//go:embed report.html.tmpl
var pageSource string

// pageTemplate is the report page. html/template escapes every value that
// comes from the run (trial names, parameters, errors, query texts).
var pageTemplate = template.Must(template.New("report").Parse(pageSource))
