package seal

import (
	"bytes"
	"testing"
	"time"
)

// payload200 is the size of a typical requestState or cursor payload.
var payload200 = bytes.Repeat([]byte("0123456789"), 20)

func BenchmarkSeal(b *testing.B) {
	s := mustNew(b, testKey(1))
	expires := t0.Add(time.Minute)
	b.ReportAllocs()
	b.SetBytes(int64(len(payload200)))
	for b.Loop() {
		s.Seal("requestState", payload200, expires)
	}
}

func BenchmarkOpen(b *testing.B) {
	s := mustNew(b, testKey(1), testKey(2))
	token := s.Seal("requestState", payload200, t0.Add(time.Minute))
	b.ReportAllocs()
	b.SetBytes(int64(len(payload200)))
	for b.Loop() {
		if _, err := s.Open("requestState", token, t0); err != nil {
			b.Fatal(err)
		}
	}
}
