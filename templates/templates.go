// Package templates holds the files mcpgen init writes into a new server
// project, embedded into the mcpgen binary. Every file under project/ is a
// text/template named after the file it becomes plus ".tmpl", with [[ and ]]
// as delimiters since Go composite literals are full of {{. The data it is
// executed with is scaffold.Data (internal/scaffold).
package templates

import "embed"

// Project is the tree of a new project's templates, rooted at "project".
//
//go:embed all:project
var Project embed.FS
