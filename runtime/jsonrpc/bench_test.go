package jsonrpc

import (
	"encoding/json"
	"strings"
	"testing"
)

// stdMessage is what encoding/json needs to read the fields walkMessage
// reads.
type stdMessage struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  struct {
		Name   string    `json:"name"`
		Scores []float64 `json:"scores"`
	} `json:"params"`
}

func BenchmarkScanObject(b *testing.B) {
	b.Run("jsonrpc", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(message)))
		var s Scanner
		for b.Loop() {
			s.Reset(message)
			if _, err := walkMessage(&s); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(message)))
		for b.Loop() {
			var m stdMessage
			if err := json.Unmarshal(message, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkSkip(b *testing.B) {
	b.Run("jsonrpc", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(message)))
		var s Scanner
		for b.Loop() {
			s.Reset(message)
			if err := s.Skip(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json-Valid", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(message)))
		for b.Loop() {
			if !json.Valid(message) {
				b.Fatal("invalid")
			}
		}
	})
}

func BenchmarkString(b *testing.B) {
	docs := map[string][]byte{
		"plain":   []byte(`"` + strings.Repeat("plain text ", 20) + `"`),
		"escaped": []byte(`"` + strings.Repeat(`line\n\"q\" \u00e9 `, 10) + `"`),
		"unicode": []byte(`"` + strings.Repeat("héllo wörld 中文 ", 10) + `"`),
	}
	for _, name := range []string{"plain", "escaped", "unicode"} {
		doc := docs[name]
		b.Run(name+"/StringBytes", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(doc)))
			var s Scanner
			for b.Loop() {
				s.Reset(doc)
				if _, err := s.StringBytes(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/encoding-json", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				var v string
				if err := json.Unmarshal(doc, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkAppendString(b *testing.B) {
	strs := map[string]string{
		"plain":   strings.Repeat("plain text ", 20),
		"escaped": strings.Repeat("line\n\"q\" <b> ", 10),
		"unicode": strings.Repeat("héllo wörld 中文 ", 10),
	}
	for _, name := range []string{"plain", "escaped", "unicode"} {
		s := strs[name]
		b.Run(name+"/jsonrpc", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(s)))
			buf := make([]byte, 0, 1024)
			for b.Loop() {
				buf = AppendString(buf[:0], s)
			}
		})
		b.Run(name+"/encoding-json", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				if _, err := json.Marshal(s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkAppendFloat(b *testing.B) {
	b.Run("jsonrpc", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 64*len(floats))
		for b.Loop() {
			buf = buf[:0]
			for _, f := range floats {
				buf = AppendFloat(buf, f)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, f := range floats {
				if _, err := json.Marshal(f); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
