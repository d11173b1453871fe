// Package fetch downloads an official MCP schema.json from the
// specification repository, checks it, and writes it atomically.
package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/mcpgen/mcpgen/internal/hint"
	"github.com/mcpgen/mcpgen/parser/schema"
)

// DefaultBaseURL is the schema folder of the specification repository; a
// version's file is BaseURL/VERSION/schema.json.
const DefaultBaseURL = "https://raw.githubusercontent.com/modelcontextprotocol/modelcontextprotocol/main/schema"

// maxSize bounds a download; the largest official schema is a few hundred
// kilobytes.
const maxSize = 32 << 20

var versionRE = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}|draft)$`)

// Options configure Schema.
type Options struct {
	// BaseURL replaces DefaultBaseURL.
	BaseURL string
	// Client replaces http.DefaultClient.
	Client *http.Client
}

// URL returns where the schema of version is downloaded from.
func (o Options) URL(version string) string {
	base := o.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	return strings.TrimSuffix(base, "/") + "/" + version + "/schema.json"
}

// Schema downloads the schema of version, parses it and checks it against
// its metaschema, and writes it to dir/version/schema.json through a
// temporary file, so that the file is either the whole new schema or what
// it was before. It returns the path written.
func Schema(ctx context.Context, version, dir string, o Options) (string, error) {
	if !versionRE.MatchString(version) {
		return "", hint.Errorf("versions look like 2025-11-25 (or draft)", "%q is not a schema version", version)
	}
	u := o.URL(version)
	if _, err := url.ParseRequestURI(u); err != nil {
		return "", hint.Errorf("--base-url takes an http or https URL", "bad URL %s: %v", u, err)
	}
	data, err := download(ctx, u, o.Client)
	if err != nil {
		return "", err
	}
	if _, err := schema.Parse(u, data); err != nil {
		return "", hint.Wrap(fmt.Errorf("downloaded schema is not valid: %w", err), "check --base-url and the version; nothing was written")
	}
	target := filepath.Join(dir, version, "schema.json")
	if err := writeAtomic(target, data); err != nil {
		return "", err
	}
	return target, nil
}

func download(ctx context.Context, u string, c *http.Client) ([]byte, error) {
	if c == nil {
		c = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, hint.Errorf("check the network, or point --base-url at a reachable copy of the schema folder", "cannot reach %s: %v", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, hint.Errorf("published versions include 2024-11-05, 2025-03-26, 2025-06-18 and 2025-11-25", "no schema at %s (404 Not Found): unknown version?", u)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, hint.Errorf("try again later, or point --base-url at another copy", "GET %s: %s", u, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxSize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", u, err)
	}
	if len(data) > maxSize {
		return nil, fmt.Errorf("%s is larger than %d bytes: not a schema", u, maxSize)
	}
	return data, nil
}

// writeAtomic writes data to path through a temporary file in the same
// directory and a rename.
func writeAtomic(path string, data []byte) (err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".schema-*.json")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(f.Name())
		}
	}()
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
