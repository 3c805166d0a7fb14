package backend_test

import (
	"slices"
	"testing"

	"paddle/core/backend"
	_ "paddle/core/backend/all"
)

func TestCPUIsRegistered(t *testing.T) {
	if !slices.Contains(backend.List(), "cpu") {
		t.Fatalf("backends %v lack cpu", backend.List())
	}
	if _, err := backend.Get("cpu"); err != nil {
		t.Fatal(err)
	}
	_, err := backend.Get("cuda:0")
	if err == nil || err.Error() != `device "cuda:0": no such backend (available: cpu)` {
		t.Fatalf("Get(cuda:0) error = %v", err)
	}
}
