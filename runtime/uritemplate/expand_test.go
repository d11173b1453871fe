package uritemplate

import (
	"strings"
	"testing"
)

// rfcVars is the variable set of RFC 6570 section 3.2.
var rfcVars = map[string]any{
	"count":      []string{"one", "two", "three"},
	"dom":        []string{"example", "com"},
	"dub":        "me/too",
	"hello":      "Hello World!",
	"half":       "50%",
	"var":        "value",
	"who":        "fred",
	"base":       "http://example.com/home/",
	"path":       "/foo/bar",
	"list":       []string{"red", "green", "blue"},
	"keys":       map[string]string{"semi": ";", "dot": ".", "comma": ","},
	"v":          "6",
	"x":          "1024",
	"y":          "768",
	"empty":      "",
	"empty_keys": map[string]string{},
	"undef":      nil,
}

// The examples of RFC 6570 sections 3.2.1 to 3.2.9. Expand orders map
// pairs by key, so the "keys" rows list comma, dot, semi where the RFC,
// which keeps insertion order, lists semi, dot, comma.
var rfcExamples = []struct{ template, want string }{
	// 3.2.1 Variable Expansion
	{"{count}", "one,two,three"},
	{"{count*}", "one,two,three"},
	{"{/count}", "/one,two,three"},
	{"{/count*}", "/one/two/three"},
	{"{;count}", ";count=one,two,three"},
	{"{;count*}", ";count=one;count=two;count=three"},
	{"{?count}", "?count=one,two,three"},
	{"{?count*}", "?count=one&count=two&count=three"},
	{"{&count*}", "&count=one&count=two&count=three"},

	// 3.2.2 Simple String Expansion
	{"{var}", "value"},
	{"{hello}", "Hello%20World%21"},
	{"{half}", "50%25"},
	{"O{empty}X", "OX"},
	{"O{undef}X", "OX"},
	{"{x,y}", "1024,768"},
	{"{x,hello,y}", "1024,Hello%20World%21,768"},
	{"?{x,empty}", "?1024,"},
	{"?{x,undef}", "?1024"},
	{"?{undef,y}", "?768"},
	{"{var:3}", "val"},
	{"{var:30}", "value"},
	{"{list}", "red,green,blue"},
	{"{list*}", "red,green,blue"},
	{"{keys}", "comma,%2C,dot,.,semi,%3B"},
	{"{keys*}", "comma=%2C,dot=.,semi=%3B"},

	// 3.2.3 Reserved Expansion
	{"{+var}", "value"},
	{"{+hello}", "Hello%20World!"},
	{"{+half}", "50%25"},
	{"{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"},
	{"{+base}index", "http://example.com/home/index"},
	{"O{+empty}X", "OX"},
	{"O{+undef}X", "OX"},
	{"{+path}/here", "/foo/bar/here"},
	{"here?ref={+path}", "here?ref=/foo/bar"},
	{"up{+path}{var}/here", "up/foo/barvalue/here"},
	{"{+x,hello,y}", "1024,Hello%20World!,768"},
	{"{+path,x}/here", "/foo/bar,1024/here"},
	{"{+path:6}/here", "/foo/b/here"},
	{"{+list}", "red,green,blue"},
	{"{+list*}", "red,green,blue"},
	{"{+keys}", "comma,,,dot,.,semi,;"},
	{"{+keys*}", "comma=,,dot=.,semi=;"},

	// 3.2.4 Fragment Expansion
	{"{#var}", "#value"},
	{"{#hello}", "#Hello%20World!"},
	{"{#half}", "#50%25"},
	{"foo{#empty}", "foo#"},
	{"foo{#undef}", "foo"},
	{"{#x,hello,y}", "#1024,Hello%20World!,768"},
	{"{#path,x}/here", "#/foo/bar,1024/here"},
	{"{#path:6}/here", "#/foo/b/here"},
	{"{#list}", "#red,green,blue"},
	{"{#list*}", "#red,green,blue"},
	{"{#keys}", "#comma,,,dot,.,semi,;"},
	{"{#keys*}", "#comma=,,dot=.,semi=;"},

	// 3.2.5 Label Expansion with Dot-Prefix
	{"{.who}", ".fred"},
	{"{.who,who}", ".fred.fred"},
	{"{.half,who}", ".50%25.fred"},
	{"www{.dom*}", "www.example.com"},
	{"X{.var}", "X.value"},
	{"X{.empty}", "X."},
	{"X{.undef}", "X"},
	{"X{.var:3}", "X.val"},
	{"X{.list}", "X.red,green,blue"},
	{"X{.list*}", "X.red.green.blue"},
	{"X{.keys}", "X.comma,%2C,dot,.,semi,%3B"},
	{"X{.keys*}", "X.comma=%2C.dot=..semi=%3B"},
	{"X{.empty_keys}", "X"},
	{"X{.empty_keys*}", "X"},

	// 3.2.6 Path Segment Expansion
	{"{/who}", "/fred"},
	{"{/who,who}", "/fred/fred"},
	{"{/half,who}", "/50%25/fred"},
	{"{/who,dub}", "/fred/me%2Ftoo"},
	{"{/var}", "/value"},
	{"{/var,empty}", "/value/"},
	{"{/var,undef}", "/value"},
	{"{/var,x}/here", "/value/1024/here"},
	{"{/var:1,var}", "/v/value"},
	{"{/list}", "/red,green,blue"},
	{"{/list*}", "/red/green/blue"},
	{"{/list*,path:4}", "/red/green/blue/%2Ffoo"},
	{"{/keys}", "/comma,%2C,dot,.,semi,%3B"},
	{"{/keys*}", "/comma=%2C/dot=./semi=%3B"},

	// 3.2.7 Path-Style Parameter Expansion
	{"{;who}", ";who=fred"},
	{"{;half}", ";half=50%25"},
	{"{;empty}", ";empty"},
	{"{;v,empty,who}", ";v=6;empty;who=fred"},
	{"{;v,bar,who}", ";v=6;who=fred"},
	{"{;x,y}", ";x=1024;y=768"},
	{"{;x,y,empty}", ";x=1024;y=768;empty"},
	{"{;x,y,undef}", ";x=1024;y=768"},
	{"{;hello:5}", ";hello=Hello"},
	{"{;list}", ";list=red,green,blue"},
	{"{;list*}", ";list=red;list=green;list=blue"},
	{"{;keys}", ";keys=comma,%2C,dot,.,semi,%3B"},
	{"{;keys*}", ";comma=%2C;dot=.;semi=%3B"},

	// 3.2.8 Form-Style Query Expansion
	{"{?who}", "?who=fred"},
	{"{?half}", "?half=50%25"},
	{"{?x,y}", "?x=1024&y=768"},
	{"{?x,y,empty}", "?x=1024&y=768&empty="},
	{"{?x,y,undef}", "?x=1024&y=768"},
	{"{?var:3}", "?var=val"},
	{"{?list}", "?list=red,green,blue"},
	{"{?list*}", "?list=red&list=green&list=blue"},
	{"{?keys}", "?keys=comma,%2C,dot,.,semi,%3B"},
	{"{?keys*}", "?comma=%2C&dot=.&semi=%3B"},

	// 3.2.9 Form-Style Query Continuation
	{"{&who}", "&who=fred"},
	{"{&half}", "&half=50%25"},
	{"?fixed=yes{&x}", "?fixed=yes&x=1024"},
	{"{&x,y,empty}", "&x=1024&y=768&empty="},
	{"{&var:3}", "&var=val"},
	{"{&list}", "&list=red,green,blue"},
	{"{&list*}", "&list=red&list=green&list=blue"},
	{"{&keys}", "&keys=comma,%2C,dot,.,semi,%3B"},
	{"{&keys*}", "&comma=%2C&dot=.&semi=%3B"},
}

func TestExpandRFCExamples(t *testing.T) {
	for _, tc := range rfcExamples {
		tmpl, err := Parse(tc.template)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.template, err)
			continue
		}
		got, err := tmpl.Expand(rfcVars)
		if err != nil {
			t.Errorf("Expand(%q): %v", tc.template, err)
			continue
		}
		if got != tc.want {
			t.Errorf("Expand(%q) = %q, want %q", tc.template, got, tc.want)
		}
	}
}

func TestExpand(t *testing.T) {
	tests := []struct {
		template string
		vars     map[string]any
		want     string
	}{
		{"file:///{path}", map[string]any{"path": "a b/c.txt"}, "file:///a%20b%2Fc.txt"},
		{"db://{+table}", map[string]any{"table": "a/b?c"}, "db://a/b?c"},
		{"users://{user}/posts{?limit,offset}", map[string]any{"user": "bob", "offset": "5"}, "users://bob/posts?offset=5"},
		{"users://{user}/posts{?limit,offset}", map[string]any{"user": "bob"}, "users://bob/posts"},
		{"{x}", nil, ""},
		// Non-ASCII is pct-encoded as UTF-8, in values and literals alike.
		{"é/{x}", map[string]any{"x": "ü"}, "%C3%A9/%C3%BC"},
		// '+' keeps a valid triplet but encodes a stray '%'.
		{"{+x}", map[string]any{"x": "%41%zz%"}, "%41%25zz%25"},
		// Prefixes count characters, not bytes.
		{"{x:2}", map[string]any{"x": "üéa"}, "%C3%BC%C3%A9"},
		{"{?list*}", map[string]any{"list": []string{"a", ""}}, "?list=a&list="},
		{"{;list*}", map[string]any{"list": []string{"a", ""}}, ";list=a;list"},
		{"{;keys*}", map[string]any{"keys": map[string]string{"a": "", "b": "1"}}, ";a;b=1"},
		{"{keys*}", map[string]any{"keys": map[string]string{"a": ""}}, "a="},
		{"{?empty_list}", map[string]any{"empty_list": []string{}}, ""},
		{"{a%20b}", map[string]any{"a%20b": "x"}, "x"},
	}
	for _, tc := range tests {
		got, err := mustParse(t, tc.template).Expand(tc.vars)
		if err != nil {
			t.Errorf("Expand(%q, %v): %v", tc.template, tc.vars, err)
		} else if got != tc.want {
			t.Errorf("Expand(%q, %v) = %q, want %q", tc.template, tc.vars, got, tc.want)
		}
	}
}

func TestExpandErrors(t *testing.T) {
	tests := []struct {
		template string
		vars     map[string]any
		want     string
	}{
		{"{list:3}", map[string]any{"list": []string{"a"}}, `expand {list:3}: variable "list": prefix modifier on a list`},
		{"x{/keys:3}", map[string]any{"keys": map[string]string{"a": "b"}}, `expand {/keys:3}: variable "keys": prefix modifier on a map`},
		{"{n}", map[string]any{"n": 3}, `expand {n}: variable "n": unsupported value of type int`},
	}
	for _, tc := range tests {
		_, err := mustParse(t, tc.template).Expand(tc.vars)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Expand(%q) error = %v, want it to contain %q", tc.template, err, tc.want)
		}
	}
}

func mustParse(t testing.TB, template string) *Template {
	t.Helper()
	tmpl, err := Parse(template)
	if err != nil {
		t.Fatalf("Parse(%q): %v", template, err)
	}
	return tmpl
}
