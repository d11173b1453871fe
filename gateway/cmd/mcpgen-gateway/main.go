// Command mcpgen-gateway serves one MCP endpoint per virtual server of its
// configuration, in front of the upstream MCP servers it names.
//
//	mcpgen-gateway serve --config gateway.yaml
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
				Name:   "serve",
				Usage:  "serve the virtual servers of the configuration",
				Flags:  []cli.Flag{configFlag},
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
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
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
