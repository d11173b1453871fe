package jsonrpc

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"testing"
)

// FuzzScanner checks the Scanner against encoding/json: Raw, Skip and a
// structured walk accept exactly what json.Valid accepts, the walk decodes
// what json.Unmarshal decodes, and String reads what json.Unmarshal reads
// into a string.
func FuzzScanner(f *testing.F) {
	for _, doc := range corpus {
		f.Add([]byte(doc))
	}
	f.Add(message)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAgainstStdlib(t, data)
		checkStringAgainstStdlib(t, data)
	})
}

// FuzzInt64 checks Int64 against exact rational arithmetic.
func FuzzInt64(f *testing.F) {
	for _, seed := range []string{
		"0", "-0", "1", "1.0", "1.5", "1e3", "12.5e1", "100e-2", "0.05e2", "9223372036854775807",
		"-9223372036854775808", "9223372036854775808", "9.2233720368547758e18", "1e19", "1e-1",
		"01", "1.", "-", "true",
	} {
		f.Add(seed)
	}
	limit := new(big.Rat).SetInt64(math.MaxInt64)
	floor := new(big.Rat).SetInt64(math.MinInt64)
	f.Fuzz(func(t *testing.T, lit string) {
		s := scanner(lit)
		got, err := s.Int64()
		if err == nil {
			err = s.End()
		}
		isNumber := json.Valid([]byte(lit)) && scanner(lit).Peek() == KindNumber
		if !isNumber {
			if err == nil {
				t.Fatalf("Int64(%q) = %d, want an error: not a number", lit, got)
			}
			return
		}
		s.Reset([]byte(lit))
		num, _ := s.Number()
		if _, _, exp := splitNumber(trimLeft(num, '-')); exp > 1000 || exp < -1000 {
			return // big.Rat would build a huge power of ten
		}
		r, ok := new(big.Rat).SetString(string(num))
		if !ok {
			t.Fatalf("big.Rat cannot read %q", num)
		}
		var ne *NumberError
		switch {
		case !r.IsInt():
			if !errors.As(err, &ne) || ne.Msg != "is not an integer" {
				t.Fatalf("Int64(%q) = %d, %v; want not an integer", lit, got, err)
			}
		case r.Cmp(limit) > 0 || r.Cmp(floor) < 0:
			if !errors.As(err, &ne) || ne.Msg != "is out of range for int64" {
				t.Fatalf("Int64(%q) = %d, %v; want out of range", lit, got, err)
			}
		default:
			if err != nil || got != r.Num().Int64() {
				t.Fatalf("Int64(%q) = %d, %v; want %s", lit, got, err, r.Num())
			}
		}
	})
}

// FuzzAppendString checks AppendString and AppendStringBytes against
// json.Marshal.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "\"\\\n\x00<>&", "é中😀\u2028\u2029", "\xff\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkAppendString(t, s)
	})
}

// FuzzAppendFloat checks AppendFloat against json.Marshal, and that Float64
// reads the output back to the same bits.
func FuzzAppendFloat(f *testing.F) {
	for _, v := range floats {
		f.Add(math.Float64bits(v))
	}
	f.Add(math.Float64bits(math.NaN()))
	f.Fuzz(func(t *testing.T, bits uint64) {
		v := math.Float64frombits(bits)
		want, stdErr := json.Marshal(v)
		got, err := AppendFloatChecked(nil, v)
		if (err == nil) != (stdErr == nil) || string(got) != string(want) {
			t.Fatalf("AppendFloatChecked(%v) = %s, %v; json.Marshal = %s, %v", v, got, err, want, stdErr)
		}
		if err != nil {
			return
		}
		back, err := scanner(string(got)).Float64()
		if err != nil || math.Float64bits(back) != bits {
			t.Fatalf("Float64(%s) = %v, %v; want %v", got, back, err, v)
		}
	})
}
