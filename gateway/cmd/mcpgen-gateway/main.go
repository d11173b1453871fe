// Command mcpgen-gateway serves one MCP endpoint per virtual server of its
// configuration, in front of the upstream MCP servers it names.
//
//	mcpgen-gateway serve --config gateway.yaml
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/mcpgen/mcpgen/gateway"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

func main() {
	configFlag := &cli.StringFlag{Name: "config", Usage: "the gateway's YAML configuration `FILE`", Required: true}
	app := &cli.App{
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
				Name:   "lock",
				Usage:  "write the lock file of pinned tool definitions",
				Flags:  []cli.Flag{configFlag},
				Action: notYet,
			},
			{
				Name:      "approve",
				Usage:     "record changed or new tool definitions in the lock file",
				ArgsUsage: "[NAME...]",
				Flags:     []cli.Flag{configFlag},
				Action:    notYet,
			},
		},
	}
	if err := app.Run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "mcpgen-gateway:", err)
		os.Exit(1)
	}
}

func notYet(c *cli.Context) error {
	return fmt.Errorf("%s is not implemented yet", c.Command.Name)
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
	go reloadOnHangup(ctx, hup, g, c.String("config"), log)
	log.Info("serving", "listen", cfg.Listen)
	err = streamable.ListenAndServe(ctx, cfg.Listen, g.Handler())
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// reloadOnHangup reloads the configuration file on each signal from hup
// until ctx ends; a file that does not load is logged, and the running
// configuration stays.
func reloadOnHangup(ctx context.Context, hup <-chan os.Signal, g *gateway.Gateway, file string, log *slog.Logger) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
		}
		cfg, err := gateway.LoadConfig(file)
		if err != nil {
			log.Error("config: not reloaded; the running configuration stays", "err", err)
			continue
		}
		if err := g.Reload(cfg); err != nil {
			log.Warn("config: reloaded, with errors", "err", err)
			continue
		}
		log.Info("config: reloaded on SIGHUP", "file", file)
	}
}
