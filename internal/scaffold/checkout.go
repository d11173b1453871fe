package scaffold

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
)

// Source says where the running mcpgen comes from: the version a new
// project should require, or the checkout it was built from.
type Source struct {
	// Version is mcpgen's module version, "" when it has none (a build
	// from a checkout reports "(devel)").
	Version string
	// Checkout is the root of the mcpgen checkout the binary was built
	// from, "" when it was not built from one that is still on disk.
	Checkout string
}

// Running describes the running mcpgen.
func Running() Source {
	var src Source
	if bi, ok := debug.ReadBuildInfo(); ok {
		mods := append([]*debug.Module{&bi.Main}, bi.Deps...)
		for _, m := range mods {
			if m.Path != ModulePath {
				continue
			}
			if m.Replace == nil && m.Version != "" && m.Version != "(devel)" {
				src.Version = m.Version
			}
			break
		}
		if bi.Main.Path == ModulePath && src.Version == "" {
			src.Checkout = checkoutRoot()
		}
	}
	return src
}

// checkoutRoot finds the mcpgen module root from the path this file was
// compiled from (absent under -trimpath), then from the working directory.
func checkoutRoot() string {
	var starts []string
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		starts = append(starts, filepath.Dir(file))
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	for _, start := range starts {
		if root := ModuleRoot(start); root != "" {
			return root
		}
	}
	return ""
}

// ModuleRoot walks up from start to the directory whose go.mod declares
// mcpgen's module and returns it, or "" when there is none.
func ModuleRoot(start string) string {
	for dir := start; ; {
		if declaresMCPGen(filepath.Join(dir, "go.mod")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// declaresMCPGen reports whether the go.mod file at name declares mcpgen's module.
func declaresMCPGen(name string) bool {
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`) == ModulePath
		}
	}
	return false
}
