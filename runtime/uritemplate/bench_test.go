package uritemplate

import "testing"

func BenchmarkMatch(b *testing.B) {
	benchmarks := []struct{ name, template, uri string }{
		{"simple", "test://template/{id}/data", "test://template/12345/data"},
		{"reserved", "file:///{+path}", "file:///home/user/projects/mcpgen/runtime/uritemplate/match.go"},
		{"query", "users://{user}/posts{?limit,offset}", "users://alice/posts?offset=20&limit=10"},
		{"miss", "users://{user}/posts{?limit,offset}", "users://alice/comments?offset=20"},
	}
	for _, bm := range benchmarks {
		tmpl := mustParse(b, bm.template)
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				tmpl.Match(bm.uri)
			}
		})
	}
}

func BenchmarkExpand(b *testing.B) {
	tmpl := mustParse(b, "users://{user}/posts{?limit,offset}")
	vars := map[string]any{"user": "alice", "limit": "10", "offset": "20"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tmpl.Expand(vars); err != nil {
			b.Fatal(err)
		}
	}
}
