package cli

import "testing"

func TestCheckLoopback(t *testing.T) {
	tests := []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:8080", true},
		{"127.0.0.2:0", true},
		{"[::1]:8080", true},
		{"localhost:8080", true},
		{":8080", false},
		{"0.0.0.0:8080", false},
		{"[::]:8080", false},
		{"192.168.1.2:8080", false},
		{"example.com:80", false},
		{"127.0.0.1", false},
	}
	for _, tt := range tests {
		if err := CheckLoopback(tt.addr); (err == nil) != tt.ok {
			t.Errorf("CheckLoopback(%q) = %v, want ok %v", tt.addr, err, tt.ok)
		}
	}
}
