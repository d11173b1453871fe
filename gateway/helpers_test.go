package gateway

import (
	"context"
	"log/slog"
)

// recorder is a slog.Handler that keeps the "line" attribute of each record.
type recorder struct{ lines *[]string }

func newRecorder(lines *[]string) *slog.Logger { return slog.New(recorder{lines}) }

func (r recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r recorder) Handle(_ context.Context, rec slog.Record) error {
	rec.Attrs(func(a slog.Attr) bool {
		if a.Key == "line" {
			*r.lines = append(*r.lines, a.Value.String())
		}
		return true
	})
	return nil
}
func (r recorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r recorder) WithGroup(string) slog.Handler      { return r }
