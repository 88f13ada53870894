//go:build !unix

package testplugin

import (
	"os"
	"testing"
)

// socketpair skips the test: this OS has no socketpair. The tests still
// build here so that vet checks them.
func socketpair(t *testing.T) (a, b *os.File) {
	t.Helper()
	t.Skip("no unix socketpair on this OS")
	return nil, nil
}
