package model

import (
	"strings"
	"testing"
)

// TestCheckDiscriminators feeds malformed tables to the table check.
func TestCheckDiscriminators(t *testing.T) {
	for _, c := range []struct {
		name string
		d    Discriminator
		want string
	}{
		{"value twice", Discriminator{Key: "k", Tags: []Tag{{Value: "a"}, {Value: "a", Variant: "X"}}}, `lists "a" twice`},
		{"absent without a tag", Discriminator{Key: "k", Tags: []Tag{{Value: "a", Variant: "X"}}, Absent: "b"}, `reads an absent k as "b", which no tag has`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := checkDiscriminators([]Discriminator{c.d}); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%+v: error %v, want %q", c.d, err, c.want)
			}
		})
	}
}
