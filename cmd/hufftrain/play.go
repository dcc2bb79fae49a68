package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"tremor/client/headless"
	"tremor/net/netchan"
	"tremor/server"
)

// Play runs a real match on 127.0.0.1 — a server on mapName with bots and
// headless clients — for d, and returns every byte the server handed its
// Huffman coder: real Tremor traffic to train the table on.
func Play(mapName string, clients, bots int, d time.Duration) ([]byte, error) {
	conn, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	cfg := server.DefaultConfig()
	cfg.Game.FragLimit, cfg.Game.TimeLimit = 0, 0
	srv, err := server.New(conn, cfg, io.Discard)
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	if err := srv.Map(mapName); err != nil {
		return nil, err
	}
	if bots > 0 {
		srv.Exec(fmt.Sprintf("addbot %d", bots))
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()

	var captured []byte
	if !srv.Do(ctx, func() { srv.SetCapture(&captured) }) {
		cancel()
		return nil, fmt.Errorf("server stopped before the capture began")
	}
	r := headless.New(headless.Config{Server: srv.Addr(), Clients: clients, Duration: d, Seed: 1})
	rep, err := r.Run(context.Background())
	srv.Do(ctx, func() { srv.SetCapture(nil) })
	cancel()
	if rerr := <-done; err == nil {
		err = rerr
	}
	if err != nil {
		return nil, err
	}
	if rep.Failed() {
		return nil, fmt.Errorf("a headless client failed")
	}
	return captured, nil
}
