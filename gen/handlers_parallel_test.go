package gen_test

import (
	"bytes"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/parser/gosrc"
)

// TestHandlersParallelOnOneModel renders each golden/handlers package's
// model from two goroutines at once (under -race in make test), as
// TestParallelOnOneModel does for the protocol: the handler back end reads
// model.Handlers and never writes it, so both renders give the same bytes.
func TestHandlersParallelOnOneModel(t *testing.T) {
	dir, cases := handlerCases(t)
	for _, c := range cases {
		t.Run(c, func(t *testing.T) {
			h, err := gosrc.Parse(filepath.Join(dir, c))
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			outs := make([][]byte, 2)
			errs := make([]error, 2)
			for i := range outs {
				wg.Go(func() { outs[i], errs[i] = gen.Handlers(h) })
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			if len(outs[0]) == 0 || !bytes.Equal(outs[0], outs[1]) {
				t.Errorf("the two renders differ (%d and %d bytes)", len(outs[0]), len(outs[1]))
			}
		})
	}
}
