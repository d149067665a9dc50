package backend_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ordo-db/ordo/backend"
)

func TestErrorCode(t *testing.T) {
	for msg, code := range map[string]string{
		"WRONGTYPE Operation against a key holding the wrong kind of value": "WRONGTYPE",
		"NOSCRIPT No matching script. Please use EVAL.":                     "NOSCRIPT",
		"ERR unknown command": "ERR",
		"STALE":               "STALE",
		"":                    "",
	} {
		e := &backend.Error{Msg: msg}
		if e.Code() != code || e.Error() != msg {
			t.Errorf("%q: Code %q Error %q", msg, e.Code(), e.Error())
		}
		wrapped := fmt.Errorf("context: %w", e)
		if code != "" && !backend.HasCode(wrapped, code) {
			t.Errorf("HasCode(%v, %q) = false", wrapped, code)
		}
	}
	if backend.HasCode(errors.New("WRONGTYPE not a reply"), "WRONGTYPE") {
		t.Error("HasCode on a plain error")
	}
	if backend.HasCode(&backend.Error{Msg: "WRONGTYPEX y"}, "WRONGTYPE") {
		t.Error("HasCode matched a longer code")
	}
}

func TestScriptRunFallsBackToEval(t *testing.T) {
	s := backend.NewScript("return 1")
	if s.SHA != "e0e1f9fabfc9d4800c877a703b823ac0578ff8db" {
		t.Fatalf("SHA %s", s.SHA)
	}
	loaded := false
	var calls [][]any
	do := func(ctx context.Context, args ...any) (any, error) {
		calls = append(calls, args)
		switch args[0] {
		case "EVALSHA":
			if !loaded {
				return nil, &backend.Error{Msg: "NOSCRIPT No matching script."}
			}
		case "EVAL":
			loaded = true
		}
		return int64(1), nil
	}
	ctx := context.Background()
	for range 2 {
		if v, err := s.Run(ctx, do, []string{"k1", "k2"}, "a"); v != int64(1) || err != nil {
			t.Fatal(v, err)
		}
	}
	want := "[[EVALSHA e0e1f9fabfc9d4800c877a703b823ac0578ff8db 2 k1 k2 a] [EVAL return 1 2 k1 k2 a] [EVALSHA e0e1f9fabfc9d4800c877a703b823ac0578ff8db 2 k1 k2 a]]"
	if got := fmt.Sprint(calls); got != want {
		t.Errorf("calls\n got %s\nwant %s", got, want)
	}
	// Other errors are returned as they are.
	boom := &backend.Error{Msg: "ERR boom"}
	_, err := s.Run(ctx, func(context.Context, ...any) (any, error) { return nil, boom }, nil)
	if err != boom {
		t.Errorf("err %v", err)
	}
}
