package search_test

import (
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
)

// TestMain stops the shared servers after the tests.
func TestMain(m *testing.M) { redistest.Main(m) }
