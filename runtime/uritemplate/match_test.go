package uritemplate

import (
	"maps"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

func TestMatch(t *testing.T) {
	type vars = map[string]string
	tests := []struct {
		template, uri string
		want          vars // nil: no match
	}{
		// The templates MCP servers register.
		{"file:///{path}", "file:///notes.txt", vars{"path": "notes.txt"}},
		{"file:///{path}", "file:///a%20b.txt", vars{"path": "a b.txt"}},
		{"file:///{path}", "file:///dir/notes.txt", nil}, // simple never crosses '/'
		{"file:///{path}", "file:///", nil},              // simple is never empty
		{"file:///{+path}", "file:///dir/notes.txt", vars{"path": "dir/notes.txt"}},
		{"test://template/{id}/data", "test://template/42/data", vars{"id": "42"}},
		{"test://template/{id}/data", "test://template/42/data/", nil},
		{"test://template/{id}/data", "test://template//data", nil},
		{"test://template/{id}/data", "test://other/42/data", nil},
		{"test://template/{id}/data", "test://template/4/2/data", nil},
		{"users://{user}/posts{?limit,offset}", "users://bob/posts", vars{"user": "bob"}},
		{"users://{user}/posts{?limit,offset}", "users://bob/posts?limit=10", vars{"user": "bob", "limit": "10"}},
		{"users://{user}/posts{?limit,offset}", "users://bob/posts?offset=5&limit=10", vars{"user": "bob", "limit": "10", "offset": "5"}},
		{"users://{user}/posts{?limit,offset}", "users://bob/posts?limit=", vars{"user": "bob", "limit": ""}},
		{"users://{user}/posts{?limit,offset}", "users://bob/posts?limit", vars{"user": "bob", "limit": ""}},
		{"users://{user}/posts{?limit,offset}", "users://bob/posts?sort=asc", nil},        // unknown name
		{"users://{user}/posts{?limit,offset}", "users://bob/posts?limit=1&limit=2", nil}, // repeated name
		{"users://{user}/posts{?limit,offset}", "users://bob/posts&limit=1", nil},
		{"users://{user}/posts{?limit,offset}", "users://bob/posts?", nil},
		{"db://{+table}", "db://a/b?c=d#e", vars{"table": "a/b?c=d#e"}},
		{"db://{+table}", "db://", nil},

		// Simple expressions.
		{"{a}-{b}", "x-y-z", vars{"a": "x-y", "b": "z"}}, // leftmost is greedy
		{"{name}.txt", "a.b.txt", vars{"name": "a.b"}},
		{"{x,y}", "1024,768", vars{"x": "1024", "y": "768"}},
		{"{x,y}", "1024", vars{"x": "1024"}},
		{"{x,y}", "1,2,3", nil},
		{"?{x,empty}", "?1024,", vars{"x": "1024", "empty": ""}},
		{"{hello}", "Hello%20World%21", vars{"hello": "Hello World!"}},
		{"{half}", "50%25", vars{"half": "50%"}},
		{"{half}", "50%", vars{"half": "50%"}}, // a stray '%' is kept
		{"{x}", "a?b", nil},
		{"{x}", "a#b", nil},
		{"{var:3}", "val", vars{"var": "val"}},
		{"{var:3}", "valu", nil},
		{"{var:2}", "%C3%BC%C3%A9", vars{"var": "üé"}}, // prefixes count characters
		{"{list*}", "red,green,blue", vars{"list": "red,green,blue"}},
		{"O{empty}X", "OX", nil},
		{"é/{x}", "%C3%A9/1", vars{"x": "1"}},
		{"é/{x}", "é/1", vars{"x": "1"}},

		// Reserved and fragment expressions.
		{"{+path}/here", "/foo/bar/here", vars{"path": "/foo/bar"}},
		{"here?ref={+path}", "here?ref=/foo/bar", vars{"path": "/foo/bar"}},
		{"{+base}index", "http://example.com/home/index", vars{"base": "http://example.com/home/"}},
		{"{+hello}", "Hello%20World!", vars{"hello": "Hello World!"}},
		{"{+path,x}/here", "/foo/bar,1024/here", vars{"path": "/foo/bar", "x": "1024"}},
		{"{+a,b}", "1,2,3", vars{"a": "1", "b": "2,3"}}, // the last takes the surplus
		{"{+path:6}/here", "/foo/b/here", vars{"path": "/foo/b"}},
		{"{+path:6}/here", "/foo/ba/here", nil},
		{"{+path}{?q}", "a/b?q=1", vars{"path": "a/b", "q": "1"}},
		{"{+path}{?q}", "a/b", vars{"path": "a/b"}},
		{"{+path}{?q}", "a/b?r=1", nil},
		{"{+path}{#frag}", "a/b#top", vars{"path": "a/b", "frag": "top"}},
		{"{#var}", "#value", vars{"var": "value"}},
		{"{#hello}", "#Hello%20World!", vars{"hello": "Hello World!"}},
		{"foo{#empty}", "foo#", vars{"empty": ""}},
		{"foo{#undef}", "foo", vars{}},
		{"{#x,hello,y}", "#1024,Hello%20World!,768", vars{"x": "1024", "hello": "Hello World!", "y": "768"}},
		{"{#path,x}/here", "#/foo/bar,1024/here", vars{"path": "/foo/bar", "x": "1024"}},

		// Label expressions.
		{"X{.var}", "X.value", vars{"var": "value"}},
		{"X{.empty}", "X.", vars{"empty": ""}},
		{"X{.undef}", "X", vars{}},
		{"{.who,who}", ".fred.fred", vars{"who": "fred"}},
		{"www{.dom*}", "www.example.com", vars{"dom": "example.com"}},
		{"{name}{.ext}", "a.b", vars{"name": "a", "ext": "b"}},
		{"{name}{.ext}", "a.b.c", nil}, // a single label holds no '.'
		{"{name}{.ext*}", "a.b.c", vars{"name": "a", "ext": "b.c"}},
		{"{.a,b}{.c}", ".1.2.3", vars{"a": "1", "b": "2", "c": "3"}},
		{"{/list*}{;x}", "/a/b;x=1", vars{"list": "a/b", "x": "1"}},
		{"{a}/{b}{.ext}", "x.y/z.w", vars{"a": "x.y", "b": "z", "ext": "w"}},
		{"{name}{.ext}", "a/.b", nil},
		{"X{.var}", "X.a/b", nil},

		// Path segment expressions.
		{"{/who}", "/fred", vars{"who": "fred"}},
		{"{/who,dub}", "/fred/me%2Ftoo", vars{"who": "fred", "dub": "me/too"}},
		{"{/var,empty}", "/value/", vars{"var": "value", "empty": ""}},
		{"{/var,x}/here", "/value/1024/here", vars{"var": "value", "x": "1024"}},
		{"{/var:1,var}", "/v/value", vars{"var": "v"}}, // the first use wins
		{"{/list*}", "/red/green/blue", vars{"list": "red/green/blue"}},
		{"{/list*,path:4}", "/red/green/blue/%2Ffoo", vars{"list": "red/green/blue", "path": "/foo"}},
		{"{/a}{/b}", "/x/y", vars{"a": "x", "b": "y"}},
		{"{/a}{/b}", "/x", vars{"a": "x"}},
		{"{/a}", "/x/y", nil},
		{"{/a}", "/x?y", nil},
		{"files{/path*}", "files", vars{}},
		{"files{/path*}", "files/a", vars{"path": "a"}},

		// Named expressions.
		{"{;who}", ";who=fred", vars{"who": "fred"}},
		{"{;empty}", ";empty", vars{"empty": ""}},
		{"{;v,empty,who}", ";v=6;empty;who=fred", vars{"v": "6", "empty": "", "who": "fred"}},
		{"{;v,empty,who}", ";who=fred;v=6", vars{"v": "6", "who": "fred"}},
		{"{;list*}", ";list=red;list=green;list=blue", vars{"list": "red,green,blue"}},
		{"{;hello:5}", ";hello=Hello", vars{"hello": "Hello"}},
		{"{;hello:5}", ";hello=Hello!", nil},
		{"{;x}", ";y=1", nil},
		{"{;x}/a", ";x=1/a", vars{"x": "1"}},
		{"{?x,y,empty}", "?x=1024&y=768&empty=", vars{"x": "1024", "y": "768", "empty": ""}},
		{"{?list*}", "?list=red&list=green&list=blue", vars{"list": "red,green,blue"}},
		{"{?list}", "?list=red,green,blue", vars{"list": "red,green,blue"}},
		{"{?q}", "?q=a%26b%3Dc", vars{"q": "a&b=c"}},
		{"?fixed=yes{&x}", "?fixed=yes&x=1024", vars{"x": "1024"}},
		{"?fixed=yes{&x}", "?fixed=yes", vars{}},
		{"?fixed=yes{&x}", "?fixed=no&x=1024", nil},
		{"{?a}{&b}", "?a=1&b=2", vars{"a": "1", "b": "2"}},
		{"{?a}{&b}", "?b=2&a=1", nil}, // b cannot lead a query
		{"{?a}{&b}", "?a=1", vars{"a": "1"}},
		{"{?a}{#f}", "?a=1#x", vars{"a": "1", "f": "x"}},

		// Anchoring and the empty template.
		{"", "", vars{}},
		{"", "x", nil},
		{"abc", "abc", vars{}},
		{"abc", "abcd", nil},
		{"abc", "ab", nil},
	}
	for _, tc := range tests {
		got, ok := mustParse(t, tc.template).Match(tc.uri)
		switch {
		case tc.want == nil && ok:
			t.Errorf("Match(%q, %q) = %q, want no match", tc.template, tc.uri, got)
		case tc.want != nil && !ok:
			t.Errorf("Match(%q, %q) did not match, want %q", tc.template, tc.uri, tc.want)
		case tc.want != nil && !maps.Equal(got, tc.want):
			t.Errorf("Match(%q, %q) = %q, want %q", tc.template, tc.uri, got, tc.want)
		case ok && got == nil:
			t.Errorf("Match(%q, %q) matched with a nil map", tc.template, tc.uri)
		}
	}
}

// Expanding simple string values and matching the result gives the values
// back, for templates whose variables are separated unambiguously.
func TestMatchRoundTrip(t *testing.T) {
	templates := []string{
		"file:///{path}",
		"test://template/{id}/data",
		"users://{user}/posts{?limit,offset}",
		"db://{+table}",
		"{a}/{b}/c",
		"x{.a,b}{;c,d}{#e}",
		"{/a,b}{?c}{&d}",
		"s://{a:5}/{+b}{?c,d}",
		"{a,b}",
		"{+a}/{b}",
	}
	// No reserved characters, but ones that must be encoded, so that
	// decoding is checked too. '%' is left out: '+' keeps a '%' that
	// happens to start a triplet, as RFC 6570 says it should.
	const alphabet = "abcXYZ019_~ é\"<>"
	rng := rand.New(rand.NewPCG(1, 2))
	randomValue := func() string {
		var b strings.Builder
		for n := 1 + rng.IntN(6); b.Len() < n; {
			b.WriteRune([]rune(alphabet)[rng.IntN(len([]rune(alphabet)))])
		}
		return b.String()
	}
	for _, s := range templates {
		tmpl := mustParse(t, s)
		for range 200 {
			vars := map[string]any{}
			want := map[string]string{}
			for _, name := range tmpl.Vars() {
				v := randomValue()
				vars[name] = v
				want[name] = truncate(v, prefixOf(tmpl, name))
			}
			uri, err := tmpl.Expand(vars)
			if err != nil {
				t.Fatalf("Expand(%q, %q): %v", s, vars, err)
			}
			got, ok := tmpl.Match(uri)
			if !ok || !maps.Equal(got, want) {
				t.Fatalf("Match(%q, %q) = %q, %v; want %q", s, uri, got, ok, want)
			}
		}
	}
}

// prefixOf returns the prefix modifier of name's first use, or a length
// that truncates nothing.
func prefixOf(t *Template, name string) int {
	for _, pt := range t.parts {
		for _, v := range pt.vars {
			if v.name == name && v.prefix > 0 {
				return v.prefix
			}
		}
	}
	return 1 << 30
}

// Backtracking over several expressions must stay polynomial.
func TestMatchBacktrackingIsBounded(t *testing.T) {
	tmpl := mustParse(t, "{+a}{+b}{+c}{+d}{+e}x")
	uri := strings.Repeat("y", 300)
	if _, ok := tmpl.Match(uri); ok {
		t.Fatal("matched a URI without the final literal")
	}
}

func TestMatchConcurrent(t *testing.T) {
	tmpl := mustParse(t, "users://{user}/posts{?limit,offset}")
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				user := strings.Repeat("u", g+1)
				got, ok := tmpl.Match("users://" + user + "/posts?offset=" + string(rune('0'+i%10)))
				if !ok || got["user"] != user || got["offset"] != string(rune('0'+i%10)) {
					t.Errorf("Match = %q, %v", got, ok)
					return
				}
			}
		})
	}
	wg.Wait()
}
