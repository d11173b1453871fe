package main

import (
	"bytes"
	"flag"
	"os"
	"strconv"
	"testing"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/parser/gosrc"
)

var update = flag.Bool("update", false, "rewrite mcpgen_gen.go instead of checking it")

// TestGeneratedFileIsFresh regenerates mcpgen_gen.go in memory, as
// go generate would, and fails when the committed file differs: a handler,
// a directive or schema_2020_12.json changed without go generate being run.
// -update rewrites the file.
func TestGeneratedFileIsFresh(t *testing.T) {
	h, err := gosrc.Parse(".")
	if err != nil {
		t.Fatal(err)
	}
	src, err := gen.Handlers(h)
	if err != nil {
		t.Fatal(err)
	}
	if src == nil {
		t.Fatal("the package declares no handlers")
	}
	if *update {
		if _, err := gen.WriteHandlers(".", src); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(gen.HandlersFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, src) {
		t.Errorf("%s is stale: run go generate ./examples/everything (or go test ./examples/everything -run TestGeneratedFileIsFresh -update)%s", gen.HandlersFile, firstDiff(have, src))
	}
}

// firstDiff describes the first line where have and want differ.
func firstDiff(have, want []byte) string {
	h, w := bytes.Split(have, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(h) || i < len(w); i++ {
		var hl, wl []byte
		if i < len(h) {
			hl = h[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if !bytes.Equal(hl, wl) {
			return "\nfirst difference at line " + strconv.Itoa(i+1) + ":\n  committed: " + string(hl) + "\n  generated: " + string(wl)
		}
	}
	return ""
}
