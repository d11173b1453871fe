// Command everything is the MCP server that the conformance suite
// (@modelcontextprotocol/conformance) tests: every tool, resource, prompt
// and completion its server scenarios call, answering exactly as they
// expect, for the 2026-07-28 requirement set and the 2025-11-25 one at
// once. One process serves both eras, deciding per request; there is no
// mode flag. conformance/CONTRACT.md lists what each scenario checks.
//
// The tools, prompts and resources are ordinary Go functions annotated
// with //mcp:tool, //mcp:prompt and //mcp:resource; mcpgen_gen.go, written
// by go generate, holds their schemas, decoders and registration. Only
// completion and the watched resource's change notifications are wired by
// hand (server.go), for the directives have nothing to say about them.
//
//	go run ./examples/everything              # Streamable HTTP at http://127.0.0.1:3000/mcp
//	go run ./examples/everything -http :8080  # another address
//	go run ./examples/everything -stdio       # one client on stdin and stdout
//
// With -auth-issuer and -auth-resource the HTTP endpoint becomes an OAuth
// resource server (runtime/auth): it takes only JWT access tokens of that
// issuer for that resource, serves its Protected Resource Metadata, and
// adds the tools whoami and notes_write (which needs notes:write).
//
// With -redis redis://HOST:PORT/DB the tasks, and the Streamable HTTP
// handler's session records and SSE events, are kept in that Redis
// (store/redis), so that replicas sharing it and EVERYTHING_STATE_KEY
// serve each other's tasks, and the replicas tell each other's clients of
// list changes and resource updates over its pub/sub; without it
// everything is in memory. A bad URL exits with 2, a Redis that does not
// answer at start with 1.
//
// Logs go to stderr, so that with -stdio stdout carries the protocol alone.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/runtime/streamable"
)

func main() {
	httpAddr := flag.String("http", "127.0.0.1:3000", "serve Streamable HTTP at http://`ADDR`/mcp")
	stdio := flag.Bool("stdio", false, "serve one client on stdin and stdout instead of HTTP")
	watch := flag.Duration("watch-interval", 5*time.Second, "how often test://watched-resource changes (0: never)")
	var am authMode
	flag.StringVar(&am.Issuer, "auth-issuer", "", "require access tokens of the authorization server `URL` (with -auth-resource)")
	flag.StringVar(&am.Resource, "auth-resource", "", "the server's canonical resource `URI`, which tokens must name in aud")
	flag.StringVar(&am.JWKS, "auth-jwks", "", "the issuer's JWKS `URL` (default: from the issuer's metadata)")
	flag.StringVar(&am.Scope, "auth-scope", "mcp", "the `scopes` a client is told to ask for first, space-separated")
	redisURL := flag.String("redis", "", "keep tasks, sessions and SSE events in the Redis at `URL` (redis://HOST:PORT/DB)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: everything [-http ADDR | -stdio] [-watch-interval D] [-auth-issuer URL -auth-resource URI [-auth-jwks URL]] [-redis URL]\n")
		fmt.Fprintf(flag.CommandLine.Output(), "%s=HEX[,HEX...] shares the key sealing requestState and cursors between replicas (32 bytes each)\n", stateKeyEnv)
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}

	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	keys, err := stateKeys(os.Getenv)
	if err != nil {
		log.Error("everything", "error", err)
		os.Exit(2)
	}
	var sh *shared
	if *redisURL != "" {
		sh, err = openShared(ctx, *redisURL, keys)
		if err != nil {
			log.Error("everything", "error", err)
			var pe parseError
			if errors.As(err, &pe) {
				os.Exit(2)
			}
			os.Exit(1)
		}
		defer sh.close()
		log.Info("state in Redis", "tasks", true, "sessions", !*stdio, "events", !*stdio, "bus", true)
	}
	e, err := newEverythingShared(log, sh)
	if err != nil {
		log.Error("everything", "error", err)
		os.Exit(1)
	}
	leave, err := sh.joinBus(ctx, e)
	if err != nil {
		log.Error("everything", "error", err)
		os.Exit(1)
	}
	defer leave()
	if keys != nil {
		if err := e.srv.SetStateKeys(keys...); err != nil {
			log.Error("everything", "error", err)
			os.Exit(2)
		}
	}
	var authOn *authMode
	if am.Issuer != "" || am.Resource != "" {
		if *stdio {
			log.Error("everything: the auth mode serves HTTP; stdio takes its credentials from the environment")
			os.Exit(2)
		}
		if err := registerAuthTools(e.srv); err != nil {
			log.Error("everything", "error", err)
			os.Exit(1)
		}
		authOn = &am
	}
	if *watch > 0 {
		go e.watchLoop(ctx, *watch)
	}
	if *stdio {
		log.Info("serving on stdio")
		err = e.srv.ServeStdio(ctx)
	} else {
		// Listening first, so that the URL logged is served, with the
		// port the system chose for ":0".
		var ln net.Listener
		if ln, err = streamable.Listen(*httpAddr); err == nil {
			log.Info("serving Streamable HTTP", "url", "http://"+ln.Addr().String()+"/mcp")
			err = serveHTTP(ctx, e.srv, ln, log, authOn, sh)
		}
	}
	// The tasks still running are cancelled; their handlers get a moment
	// to return.
	closeCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	if cerr := e.srv.Close(closeCtx); cerr != nil {
		log.Warn("tasks still running at exit", "error", cerr)
	}
	cancel()
	if err != nil {
		log.Error("everything", "error", err)
		os.Exit(1)
	}
}
