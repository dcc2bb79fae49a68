package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// run serves the folder on the port it got, says where on its first
// line, and stops with status 0 when its context ends.
func TestRun(t *testing.T) {
	dir, _ := folder(t, true)
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"-dir", dir, "-port", "0"}, pw, io.Discard); pw.Close() }()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	prefix := "webserve: serving " + dir + " at http://localhost:"
	if !strings.HasPrefix(line, prefix) {
		t.Fatalf("first line %q, want %q...", line, prefix)
	}
	url := strings.TrimSpace(line[strings.Index(line, "http://"):])
	res, err := http.Get(url + "index.html")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || string(b) != "<!DOCTYPE html>page" {
		t.Errorf("GET index.html: %d %q", res.StatusCode, b)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit status %d after the context ended, want 0", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after its context ended")
	}
}

func TestRunRefuses(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"-dir", "/nonexistent/folder"}, 1},
		{[]string{"-port", "70000"}, 2},
		{[]string{"extra"}, 2},
		{[]string{"-nosuchflag"}, 2},
	} {
		var errb strings.Builder
		if code := run(context.Background(), c.args, io.Discard, &errb); code != c.code {
			t.Errorf("run %q: status %d, want %d (%s)", c.args, code, c.code, errb.String())
		}
	}
}
