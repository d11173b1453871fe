// Command mcpgen-gateway serves one MCP endpoint per virtual server of its
// configuration, in front of the upstream MCP servers it names.
//
//	mcpgen-gateway serve --config gateway.yaml
//	mcpgen-gateway serve --config gateway.yaml --stdio [--server NAME]
//	mcpgen-gateway lock --config gateway.yaml [--force]
//	mcpgen-gateway approve --config gateway.yaml [NAME...]
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mcpgen/mcpgen/gateway"
	"github.com/mcpgen/mcpgen/gateway/heapfloor"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

func main() {
	if err := newApp(os.Stdout, os.Stderr).Run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "mcpgen-gateway:", err)
		os.Exit(1)
	}
}

// newApp is the command line; lock and approve print their summaries to
// stdout and log to stderr.
func newApp(stdout, stderr io.Writer) *cli.App {
	configFlag := &cli.StringFlag{Name: "config", Usage: "the gateway's YAML configuration `FILE`", Required: true}
	return &cli.App{
		Name:  "mcpgen-gateway",
		Usage: "one MCP endpoint in front of many MCP servers",
		Commands: []*cli.Command{
			{
				Name:  "serve",
				Usage: "serve the virtual servers of the configuration over HTTP, or one of them to one client over stdio",
				Flags: []cli.Flag{
					configFlag,
					&cli.BoolFlag{Name: "stdio", Usage: "serve one client on stdin and stdout, with no HTTP listener (for clients that start their MCP servers as processes)"},
					&cli.StringFlag{Name: "server", Value: "default", Usage: "the virtual server `NAME` to serve over stdio"},
				},
				Action: serve,
			},
			{
				Name:  "lock",
				Usage: "connect to every upstream and write the lock file of their tool definitions",
				Flags: []cli.Flag{configFlag, &cli.BoolFlag{Name: "force", Usage: "replace an existing lock file"}},
				Action: func(c *cli.Context) error {
					return lock(c, stdout, stderr)
				},
			},
			{
				Name:      "approve",
				Usage:     "record the current definitions of changed or new tools in the lock file (all of them without NAME)",
				ArgsUsage: "[NAME...]",
				Flags:     []cli.Flag{configFlag},
				Action: func(c *cli.Context) error {
					return approve(c, stdout, stderr)
				},
			},
		},
		Writer:    stdout,
		ErrWriter: stderr,
	}
}

// pinTimeout bounds how long lock and approve wait for the upstreams.
const pinTimeout = 2 * time.Minute

func lock(c *cli.Context, stdout, stderr io.Writer) error {
	cfg, err := gateway.LoadConfig(c.String("config"))
	if err != nil {
		return err
	}
	ctx, cancel := pinContext(c.Context)
	defer cancel()
	sum, err := gateway.WriteLock(ctx, cfg, c.Bool("force"), slog.New(slog.NewTextHandler(stderr, nil)))
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, sum.String())
	return err
}

func approve(c *cli.Context, stdout, stderr io.Writer) error {
	cfg, err := gateway.LoadConfig(c.String("config"))
	if err != nil {
		return err
	}
	ctx, cancel := pinContext(c.Context)
	defer cancel()
	sum, err := gateway.ApproveLock(ctx, cfg, c.Args().Slice(), slog.New(slog.NewTextHandler(stderr, nil)))
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, sum.String())
	return err
}

// pinContext ends on an interrupt or after pinTimeout.
func pinContext(parent context.Context) (context.Context, context.CancelFunc) {
	if parent == nil {
		parent = context.Background()
	}
	ctx, stop := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithTimeout(ctx, pinTimeout)
	return ctx, func() { cancel(); stop() }
}

func serve(c *cli.Context) error {
	cfg, err := gateway.LoadConfig(c.String("config"))
	if err != nil {
		return err
	}
	stdio := c.Bool("stdio")
	switch {
	case c.IsSet("server") && !stdio:
		return errors.New("--server names the virtual server to serve over stdio: give --stdio too (over HTTP every virtual server is served)")
	case stdio && cfg.Servers[c.String("server")] == nil:
		return fmt.Errorf("--server: %s has no virtual server %q", c.String("config"), c.String("server"))
	case !stdio && cfg.Listen == "":
		return fmt.Errorf("%s: listen: missing (host:port); or serve one client over stdio with --stdio", c.String("config"))
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	undo, kept := heapfloor.Keep(os.Getenv)
	defer undo()
	if kept {
		log.Info("collector: heap floor kept (set GOGC or GOMEMLIMIT to choose otherwise)", "floorMiB", heapfloor.Default>>20)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	g, err := gateway.New(cfg, log)
	if err != nil {
		return err
	}
	if err := g.Start(ctx); err != nil {
		return err
	}
	defer g.Close()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go reloadOnHangup(ctx, hup, g, c.String("config"))
	if stdio {
		return serveStdio(ctx, g, cfg, c.String("server"), log)
	}
	log.Info("serving", "listen", cfg.Listen)
	err = streamable.ListenAndServe(ctx, cfg.Listen, g.Handler())
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// reloadOnHangup reloads the configuration file on each signal from hup
// until ctx ends (Gateway.ReloadFile).
func reloadOnHangup(ctx context.Context, hup <-chan os.Signal, g *gateway.Gateway, file string) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			g.ReloadFile(file)
		}
	}
}

// serveStdio serves the virtual server name to the client on stdin and
// stdout until it closes them or the gateway is signalled. What the
// configuration has for HTTP callers is not in force there, and the log
// says so.
func serveStdio(ctx context.Context, g *gateway.Gateway, cfg *gateway.Config, name string, log *slog.Logger) error {
	if cfg.Listen != "" {
		log.Info("serving over stdio: listen is not used", "listen", cfg.Listen)
	}
	if cfg.Auth != nil {
		log.Warn("serving over stdio: the auth section does not apply; the client on stdin is not authenticated and authorization rules see no principal")
	}
	if cfg.REST != nil {
		log.Info("serving over stdio: the rest section is not served")
	}
	log.Info("serving over stdio", "server", name)
	err := g.ServeStdio(ctx, name)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
