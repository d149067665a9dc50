package script_test

import (
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
)

// TestMain stops the shared redis-server and ordo-server after the tests.
func TestMain(m *testing.M) { redistest.Main(m) }
